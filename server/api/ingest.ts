// POST /api/samples: a page's batch of samples, stored once or not at all.
import express, { type Router } from "express";
import { parseWith, sampleBatchSchema } from "../../shared/protocol.js";
import { SessionOwnerError, type Store } from "../store/store.js";
import { sendError } from "./http-error.js";
import { sameOriginOnly } from "./same-origin.js";

/** A full batch of 1000 samples with every optional field is ~400 kB. */
export const INGEST_BODY_BYTES_MAX = 1024 * 1024;
export const USER_AGENT_CHARS_MAX = 512;

export function ingestRouter(store: Store, nowMs: () => number): Router {
  const router = express.Router();
  router.post(
    "/api/samples",
    sameOriginOnly(),
    // sendBeacon posts text/plain; accept it as JSON too.
    express.json({ limit: INGEST_BODY_BYTES_MAX, type: ["application/json", "text/plain"] }),
    // The write runs in the writer thread; this answers once it has committed.
    async (req, res) => {
      const batch = parseWith(sampleBatchSchema, req.body);
      if (!batch.ok) return sendError(res, 400, "INVALID_BATCH", batch.error);
      const ua = req.headers["user-agent"];
      try {
        const result = await store.insertBatch(batch.value, {
          userAgent: typeof ua === "string" ? ua.slice(0, USER_AGENT_CHARS_MAX) : null,
          receivedAtMs: nowMs(),
        });
        res.json(result);
      } catch (err) {
        if (err instanceof SessionOwnerError) return sendError(res, 409, err.code, err.message);
        throw err;
      }
    },
  );
  return router;
}
