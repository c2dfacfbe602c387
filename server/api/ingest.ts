// POST /api/samples: a page's batch of samples, stored once or not at all
// (read by server/ingest/read-batch.ts, refused whole when any sample is bad).
import express, { type RequestHandler, type Router } from "express";
import type { SampleRules } from "../ingest/read-batch.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { StorageHealth } from "../storage-faults.js";
import { SessionOwnerError, type Store } from "../store/store.js";
import { sendError } from "./http-error.js";
import { sameOriginOnly } from "./same-origin.js";

/** A full batch of 1000 samples with every optional field is ~400 kB. */
export const INGEST_BODY_BYTES_MAX = 1024 * 1024;
export const USER_AGENT_CHARS_MAX = 512;

export interface IngestOptions {
  nowMs: () => number;
  /** Per-address budget, applied before the body is read. */
  budget: RequestHandler;
  /** The deployment's rules for one request's samples (time window, known targets). */
  rules: () => SampleRules;
  /** Learns each client that reports, so its public id can be looked up. */
  clients: ClientDirectory;
  /** Storage faults become 503 + Retry-After: the page keeps its samples and retries. */
  storage: StorageHealth;
}

export function ingestRouter(store: Store, o: IngestOptions): Router {
  const router = express.Router();
  router.post(
    "/api/samples",
    sameOriginOnly(),
    // Before the body is read: a refused client costs no parsing.
    o.budget,
    // The bytes only: JSON.parse is the store's reader's (sendBeacon posts text/plain, read as JSON too).
    express.raw({ limit: INGEST_BODY_BYTES_MAX, type: ["application/json", "text/plain"] }),
    // Parsing, checking and writing run where the store chooses (the SQLite
    // server store: its writer thread); this answers once the batch has
    // committed or was refused.
    async (req, res) => {
      if (!Buffer.isBuffer(req.body)) return sendError(res, 400, "INVALID_BATCH", "expected a JSON body (application/json or text/plain)");
      const ua = req.headers["user-agent"];
      try {
        const ingest = await store.ingestBody(req.body, o.rules(), {
          userAgent: typeof ua === "string" ? ua.slice(0, USER_AGENT_CHARS_MAX) : null,
          receivedAtMs: o.nowMs(),
        });
        if (!ingest.ok) return void res.status(400).set("Cache-Control", "no-store").json(ingest.refusal);
        o.storage.succeeded();
        o.clients.add(ingest.clientId);
        res.json(ingest.result);
      } catch (err) {
        if (err instanceof SessionOwnerError) return sendError(res, 409, err.code, err.message);
        if (o.storage.failed(err, res, "ingest")) return;
        throw err;
      }
    },
  );
  return router;
}
