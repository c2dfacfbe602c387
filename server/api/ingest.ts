// POST /api/samples: a page's batch of samples, stored once or not at all
// (read by server/ingest/read-batch.ts, refused whole when any sample is bad).
// A page's report (same origin, JSON or text/plain, a Content-Length within
// the limit, no content coding) is read on the raw node:http request before
// express sees it, as the echo paths are: through express it cost the event
// loop ~4.6× a bare node:http body read (365 µs a batch of 200 against 79),
// and every echo arriving meanwhile waited. Anything else goes through
// express's router and body parser, which answer every unusual case.
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Router } from "express";
import type { IngestDigest, SampleRules } from "../ingest/read-batch.js";
import type { TrustedProxies } from "../client-address.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { StorageHealth } from "../storage-faults.js";
import { SessionOwnerError } from "../store/errors.js";
import type { Store } from "../store/store.js";
import { writeJson } from "../json-answer.js";
import { admitting } from "../limits/budgets.js";
import { sendError } from "./http-error.js";
import { isSameOrigin, sameOriginOnly } from "./same-origin.js";

/** A full batch of 1000 samples with every optional field is ~400 kB. */
export const INGEST_BODY_BYTES_MAX = 1024 * 1024;
export const USER_AGENT_CHARS_MAX = 512;
const PATH = "/api/samples";
const BODY_TYPES = ["application/json", "text/plain"];

export interface IngestOptions {
  nowMs: () => number;
  /** Per-address budget, applied before the body is read: true to go on, false once it has answered (429). */
  admit: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The deployment's rules for one request's samples (time window, known targets). */
  rules: () => SampleRules;
  /** Learns each client that reports, so its public id can be looked up. */
  clients: ClientDirectory;
  /** Storage faults become 503 + Retry-After: the page keeps its samples and retries. */
  storage: StorageHealth;
  /** The proxies (--trust-proxy) whose X-Forwarded-Proto names the page's scheme. */
  trustedProxies: TrustedProxies;
  /** Told of every stored batch, after its commit (the health monitor's tap, server/health/). */
  onStored?: (digest: IngestDigest) => void;
}

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * Parsing, checking and writing run where the store chooses (the SQLite
 * server store: its writer thread); this answers once the batch has
 * committed or was refused. Rejects only with an error nobody expected.
 */
async function answerBatch(
  store: Store,
  o: IngestOptions,
  body: Uint8Array,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const ua = req.headers["user-agent"];
  try {
    const ingest = await store.ingestBody(body, o.rules(), {
      userAgent: typeof ua === "string" ? ua.slice(0, USER_AGENT_CHARS_MAX) : null,
      receivedAtMs: o.nowMs(),
    });
    if (!ingest.ok) return writeJson(res, 400, ingest.refusal, NO_STORE);
    o.storage.succeeded();
    o.clients.add(ingest.clientId);
    writeJson(res, 200, ingest.result);
    o.onStored?.(ingest.digest);
  } catch (err) {
    if (err instanceof SessionOwnerError) return sendError(res, 409, err.code, err.message);
    if (o.storage.failed(err, res, "ingest")) return;
    throw err;
  }
}

/**
 * May the raw path read this report? Not with a media type other than the
 * two, a parameter other than charset=utf-8, a content coding, a chunked or
 * empty body, or one over the limit: express answers those.
 */
function isPlainReport(req: IncomingMessage): boolean {
  const type = req.headers["content-type"];
  if (type === undefined) return false;
  const semi = type.indexOf(";");
  if (!BODY_TYPES.includes((semi < 0 ? type : type.slice(0, semi)).trim().toLowerCase())) return false;
  if (semi >= 0 && !/^\s*charset="?utf-8"?\s*$/i.test(type.slice(semi + 1))) return false;
  const coding = req.headers["content-encoding"];
  if (coding !== undefined && coding.trim().toLowerCase() !== "identity") return false;
  if (req.headers["transfer-encoding"] !== undefined) return false;
  const length = Number(req.headers["content-length"]);
  return Number.isSafeInteger(length) && length > 0 && length <= INGEST_BODY_BYTES_MAX;
}

/**
 * Answers a plain report on the raw request and returns true; returns false
 * for any other request, which express then handles (ingestRouter for the
 * unusual reports).
 */
export function ingestRawPath(store: Store, o: IngestOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== "POST" || req.url !== PATH || !isSameOrigin(req, o.trustedProxies) || !isPlainReport(req))
      return false;
    if (!o.admit(req, res)) return true;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    // An aborted request ends in "error" or "close" without "end": nothing is stored, and nobody is left to answer.
    req.on("error", () => undefined);
    req.on("end", () => {
      // One chunk is passed as it is: the writer client copies what it cannot move anyway.
      answerBatch(store, o, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), req, res).catch(
        (err: unknown) => {
          console.error("tailprobe: unexpected error:", err);
          if (!res.headersSent) sendError(res, 500, "INTERNAL", "internal error");
          else res.destroy();
        },
      );
    });
    return true;
  };
}

/** The same route through express: what the raw path leaves (chunked, compressed, other types, too large). */
export function ingestRouter(store: Store, o: IngestOptions): Router {
  const router = express.Router();
  router.post(
    PATH,
    sameOriginOnly(o.trustedProxies),
    // Before the body is read: a refused client costs no parsing.
    admitting(o.admit),
    // The bytes only: JSON.parse is the store's reader's (sendBeacon posts text/plain, read as JSON too).
    express.raw({ limit: INGEST_BODY_BYTES_MAX, type: BODY_TYPES }),
    async (req, res) => {
      if (!Buffer.isBuffer(req.body))
        return sendError(res, 400, "INVALID_BATCH", "expected a JSON body (application/json or text/plain)");
      await answerBatch(store, o, req.body, req, res);
    },
  );
  return router;
}
