// The writer's own thread: the one read-write connection, the ingest
// transactions, retention and WAL checkpoints all run here, so the event loop
// that answers /echo and /ws never runs a write and never waits on a lock.
// Messages in: WriterRequest; out: WriterReply (writer-client.ts).
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { ingested, readBatch, type BodyIngest } from "../../ingest/read-batch.js";
import { ownThreadId } from "../../platform/thread-policy.js";
import { deleteClientData } from "./admin.js";
import { Codes } from "./codes.js";
import { CHECKPOINT_INTERVAL_MS, configureWriter } from "./connection.js";
import { startRetention } from "./retention.js";
import { statementRunner } from "./statements.js";
import { batchWriter, type GroupItem } from "./writer.js";
import type { WriterInit, WriterReply, WriterRequest } from "./writer-client.js";

const init = workerData as WriterInit;
const port = parentPort!;
// Only this thread waits on another process's lock, never the event loop; a
// lock held longer than busyTimeoutMs answers 503 + Retry-After and the page retries.
const db = configureWriter(new Database(init.dbPath), init.busyTimeoutMs);
const codes = new Codes(db);
const writeGroup = batchWriter(db, codes);
const runStatements = statementRunner(db);
const offsetMs = init.nowAtStartMs - Date.now();
const retention = startRetention(
  db,
  init.retention,
  () => Date.now() + offsetMs,
  (beforeMs) => post({ type: "pruned", beforeMs }),
);
const checkpoint = setInterval(() => db.pragma("wal_checkpoint(TRUNCATE)"), CHECKPOINT_INTERVAL_MS);

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

type Write = Extract<WriterRequest, { type: "insert" | "ingest" }>;

/**
 * Writes queued while the last group ran: they are written together in one
 * transaction (writer.ts batchWriter), so a burst costs one commit.
 */
const queued: Write[] = [];
/** Writes in one group at most: a backlog drains in transactions of bounded size and memory. */
const GROUP_WRITES_MAX = 64;
/**
 * While the queue holds only small reports, a group starts at least this long
 * (ms) after the one before it started. Many tabs' reports arrive a few ms
 * apart with a few samples per series; written one at a time, each re-wrote
 * every aggregate rollup row of its series (ten a series) and committed
 * alone: at 2,000 tabs ~10 % of a core more for the writer thread. Spaced, a
 * few share them. A lone report on an idle writer waits for nothing, and one
 * that waits, at most this long more.
 */
const GROUP_SPACING_MS = 10;
/**
 * Queued body bytes from which the group is written at once: a large batch
 * shares little by waiting (its own samples outnumber the aggregate rows), and
 * a client that sends the next batch only after the last is answered (an
 * import, ingest-rate's single connection) would lose up to the spacing on
 * each (half its throughput at 500-sample batches). A page's 5-second report
 * is ~13 kB.
 */
const SPACING_BYTES_MAX = 48 * 1024;
let lastGroupAt = -Infinity;
/** Bytes of the queued ingest bodies; an already-read batch (insert) counts as large. */
let queuedBytes = 0;
const sizeOf = (m: Write): number => (m.type === "ingest" ? m.body.byteLength : SPACING_BYTES_MAX);
/** The pending turn that writes the queue: an immediate, or a timer while small reports gather. */
let scheduled: { timer: NodeJS.Timeout | null } | null = null;

function scheduleWrite(): void {
  const wait = queuedBytes >= SPACING_BYTES_MAX ? 0 : lastGroupAt + GROUP_SPACING_MS - performance.now();
  if (scheduled !== null) {
    if (scheduled.timer === null || wait > 0) return;
    clearTimeout(scheduled.timer); // enough has gathered: now
  }
  const turn: { timer: NodeJS.Timeout | null } = { timer: null };
  scheduled = turn;
  const run = () => {
    if (scheduled === turn) scheduled = null;
    writeQueued();
  };
  if (wait <= 0) setImmediate(run);
  else turn.timer = setTimeout(run, wait);
}

function writeQueued(): void {
  const writes = queued.splice(0, GROUP_WRITES_MAX);
  if (writes.length === 0) return;
  for (const m of writes) queuedBytes -= sizeOf(m);
  lastGroupAt = performance.now();
  if (queued.length > 0) scheduleWrite();
  const items: GroupItem[] = [];
  /** Per write: its index in items, or its answer already (a refused body, an error). */
  const slot: (number | BodyIngest | Error)[] = [];
  for (const m of writes) {
    if (m.type === "insert") {
      slot.push(items.push({ batch: m.batch, meta: m.meta }) - 1);
      continue;
    }
    // Ingest's reader runs here too, so the event loop never parses or checks a batch.
    try {
      const reading = readBatch(m.body, m.rules);
      slot.push(reading.ok ? items.push({ batch: reading.batch, meta: m.meta }) - 1 : reading);
    } catch (err) {
      slot.push(err instanceof Error ? err : new Error(String(err)));
    }
  }
  const results = items.length > 0 ? writeGroup(items) : [];
  writes.forEach((m, k) => {
    const s = slot[k]!;
    if (s instanceof Error) return post({ type: "failed", id: m.id, error: errorOf(s) });
    if (typeof s !== "number") return post({ type: "ingested", id: m.id, ingest: s });
    const r = results[s]!;
    if (r instanceof Error) return post({ type: "failed", id: m.id, error: errorOf(r) });
    if (m.type === "insert") return post({ type: "done", id: m.id, result: r });
    post({ type: "ingested", id: m.id, ingest: ingested(items[s]!.batch, r) });
  });
}

port.on("message", (m: WriterRequest) => {
  if (m.type === "insert" || m.type === "ingest") {
    queued.push(m);
    queuedBytes += sizeOf(m);
    scheduleWrite();
    return;
  }
  // Whatever else was asked runs after the writes asked before it.
  while (queued.length > 0) writeQueued();
  switch (m.type) {
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
    case "statements":
      try {
        post({ type: "ran", id: m.id, results: runStatements(m.statements) });
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
// The event loop sets this thread's scheduling policy by its id (writer-yield.ts).
post({ type: "ready", tid: ownThreadId() });
