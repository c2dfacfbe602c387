// The writer's own thread: the one read-write connection, the ingest
// transactions, retention and WAL checkpoints all run here, so the event loop
// that answers /echo and /ws never runs a write and never waits on a lock.
// Messages in: WriterRequest; out: WriterReply (writer-client.ts).
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { deleteClientData } from "./admin-ops.js";
import { readBatch } from "../ingest/read-batch.js";
import { startRetention } from "./retention.js";
import { batchWriter, Codes } from "./writer.js";
import type { WriterInit, WriterReply, WriterRequest } from "./writer-client.js";

const init = workerData as WriterInit;
const port = parentPort!;
const db = new Database(init.dbPath);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("foreign_keys = ON");
// Only this thread waits on another process's lock, never the event loop; a
// lock held longer than this answers 503 + Retry-After and the page retries.
db.pragma(`busy_timeout = ${init.busyTimeoutMs}`);
db.pragma(`journal_size_limit = ${init.journalSizeLimitBytes}`);
db.pragma(`cache_size = -${init.cacheKib}`);
const codes = new Codes(db);
const insertBatch = batchWriter(db, codes);
const offsetMs = init.nowAtStartMs - Date.now();
const retention = startRetention(db, init.retention, () => Date.now() + offsetMs, (beforeMs) => post({ type: "pruned", beforeMs }));
const checkpoint = setInterval(() => db.pragma("wal_checkpoint(TRUNCATE)"), init.checkpointIntervalMs);

function post(m: WriterReply): void {
  port.postMessage(m);
}

/** An error as a value that survives the thread boundary, with its code (SQLITE_FULL, SESSION_CLIENT_MISMATCH, …). */
function errorOf(err: unknown): { name: string; code: string | null; message: string } {
  const e = err as { name?: unknown; code?: unknown; message?: unknown };
  return {
    name: typeof e.name === "string" ? e.name : "Error",
    code: typeof e.code === "string" ? e.code : null,
    message: typeof e.message === "string" ? e.message : String(err),
  };
}

port.on("message", (m: WriterRequest) => {
  switch (m.type) {
    case "insert":
      try {
        post({ type: "done", id: m.id, result: insertBatch(m.batch, m.meta) });
      } catch (err) {
        post({ type: "failed", id: m.id, error: errorOf(err) });
      }
      return;
    case "ingest":
      try {
        // Ingest's reader runs here too, so the event loop never parses or checks a batch.
        const reading = readBatch(m.body, m.rules);
        post({
          type: "ingested",
          id: m.id,
          ingest: reading.ok ? { ok: true, clientId: reading.batch.clientId, result: insertBatch(reading.batch, m.meta) } : reading,
        });
      } catch (err) {
        post({ type: "failed", id: m.id, error: errorOf(err) });
      }
      return;
    case "prune":
      retention.pruneNow().then(
        (deleted) => post({ type: "pruned-now", id: m.id, deleted }),
        (err: unknown) => post({ type: "failed", id: m.id, error: errorOf(err) }),
      );
      return;
    case "delete-client":
      try {
        const deleted = deleteClientData(db, m.clientId);
        // The client's code is gone: the next batch of the same browser gets a new one.
        codes.reload();
        post({ type: "client-deleted", id: m.id, deleted });
      } catch (err) {
        post({ type: "failed", id: m.id, error: errorOf(err) });
      }
      return;
    case "close":
      retention.stop();
      clearInterval(checkpoint);
      db.close();
      port.close();
      return;
  }
});
post({ type: "ready" });
