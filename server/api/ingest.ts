// POST /api/samples: a page's batch of samples, stored once or not at all.
// A batch with bad samples is refused whole, naming each bad one, so the page
// can drop exactly those and send the rest again.
import express, { type RequestHandler, type Router } from "express";
import {
  parseWith,
  REJECTED_ERROR_CHARS_MAX,
  sampleBatchEnvelopeSchema,
  type RejectedSample,
  type Sample,
  type SampleBatch,
  type SampleRefusal,
} from "../../shared/contract/index.js";
import { readSample } from "../../shared/contract/sample-reader.js";
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
  /** Deployment checks for one request: names what is wrong with a well-formed sample. */
  checker: () => (s: Sample) => string | undefined;
  /** Learns each client that reports, so its public id can be looked up. */
  clients: ClientDirectory;
  /** Storage faults become 503 + Retry-After: the page keeps its samples and retries. */
  storage: StorageHealth;
}

/** Parses each sample on its own; the bad ones by index, or the whole batch. */
export function parseSamples(raw: unknown[], check: (s: Sample) => string | undefined): { samples: Sample[]; rejected: RejectedSample[] } {
  const samples: Sample[] = [];
  const rejected: RejectedSample[] = [];
  const seen = new Set<number>();
  raw.forEach((item, index) => {
    const seqOf = (item as { seq?: unknown } | null)?.seq;
    const seq = typeof item === "object" && item !== null && Number.isSafeInteger(seqOf) && (seqOf as number) >= 0 ? (seqOf as number) : null;
    const parsed = readSample(item);
    const error = !parsed.ok
      ? parsed.error
      : (check(parsed.value) ?? (seen.has(parsed.value.seq) ? `seq ${parsed.value.seq} appears twice in one batch` : undefined));
    if (error !== undefined || !parsed.ok) {
      rejected.push({ index, seq, error: (error ?? "invalid").slice(0, REJECTED_ERROR_CHARS_MAX) });
      return;
    }
    seen.add(parsed.value.seq);
    samples.push(parsed.value);
  });
  return { samples, rejected };
}

export function ingestRouter(store: Store, o: IngestOptions): Router {
  const router = express.Router();
  router.post(
    "/api/samples",
    sameOriginOnly(),
    // Before the body is read: a refused client costs no parsing.
    o.budget,
    // sendBeacon posts text/plain; accept it as JSON too.
    express.json({ limit: INGEST_BODY_BYTES_MAX, type: ["application/json", "text/plain"] }),
    // The write runs in the writer thread; this answers once it has committed.
    async (req, res) => {
      const envelope = parseWith(sampleBatchEnvelopeSchema, req.body);
      if (!envelope.ok) return sendError(res, 400, "INVALID_BATCH", envelope.error);
      const { samples, rejected } = parseSamples(envelope.value.samples, o.checker());
      if (rejected.length > 0) {
        const first = rejected[0]!;
        const refusal: SampleRefusal = {
          error: `${rejected.length} of ${envelope.value.samples.length} samples refused (samples.${first.index}.${first.error}); nothing stored`,
          code: "INVALID_SAMPLES",
          rejected,
        };
        return void res.status(400).set("Cache-Control", "no-store").json(refusal);
      }
      const batch: SampleBatch = { ...envelope.value, samples };
      const ua = req.headers["user-agent"];
      try {
        const result = await store.insertBatch(batch, {
          userAgent: typeof ua === "string" ? ua.slice(0, USER_AGENT_CHARS_MAX) : null,
          receivedAtMs: o.nowMs(),
        });
        o.storage.succeeded();
        o.clients.add(batch.clientId);
        res.json(result);
      } catch (err) {
        if (err instanceof SessionOwnerError) return sendError(res, 409, err.code, err.message);
        if (o.storage.failed(err, res, "ingest")) return;
        throw err;
      }
    },
  );
  return router;
}
