// The event loop's side of the writer thread (writer-thread.ts): each batch
// is posted to the thread and its promise settles when the thread has
// committed it (or failed, with the error's code carried across).
import { Worker } from "node:worker_threads";
import type { IngestResult, SampleBatch } from "../../../shared/contract/index.js";
import type { BodyIngest, SampleRules } from "../../ingest/read-batch.js";
import { SessionOwnerError, StorageError } from "../errors.js";
import type { RetentionOptions } from "../retention.js";
import type { DeletedClient, IngestMeta } from "../store.js";
import type { SqlStatement, StatementResult } from "./statements.js";
import { manageWriterPolicy, type WriterLagWatch, type WriterYieldOptions } from "./writer-yield.js";

export interface WriterInit {
  dbPath: string;
  retention: RetentionOptions;
  /** The caller's clock at start (epoch ms): the thread keeps the same offset from its own, so tests can pass a clock. */
  nowAtStartMs: number;
  /** How long a write waits for another process's lock before failing with SQLITE_BUSY (ms). */
  busyTimeoutMs: number;
}

export type WriterRequest =
  | { type: "insert"; id: number; batch: SampleBatch; meta: IngestMeta }
  | { type: "ingest"; id: number; body: Uint8Array; rules: SampleRules; meta: IngestMeta }
  | { type: "prune"; id: number }
  | { type: "delete-client"; id: number; clientId: string }
  | { type: "statements"; id: number; statements: readonly SqlStatement[] }
  | { type: "close" };

export type WriterReply =
  /** tid: the thread's kernel task id, for its scheduling policy (null off Linux). */
  | { type: "ready"; tid: string | null }
  | { type: "done"; id: number; result: IngestResult }
  | { type: "ingested"; id: number; ingest: BodyIngest }
  | { type: "pruned-now"; id: number; deleted: number }
  | { type: "client-deleted"; id: number; deleted: DeletedClient }
  | { type: "ran"; id: number; results: StatementResult[] }
  | { type: "pruned"; beforeMs: number }
  | { type: "failed"; id: number; error: { name: string; code: string | null; message: string } };

export interface WriterClient {
  insertBatch(batch: SampleBatch, meta: IngestMeta): Promise<IngestResult>;
  /** Reads the body in the thread (server/ingest/read-batch.ts), then inserts it there. */
  ingestBody(body: Uint8Array, rules: SampleRules, meta: IngestMeta): Promise<BodyIngest>;
  pruneNow(): Promise<number>;
  deleteClient(clientId: string): Promise<DeletedClient>;
  /** Runs a feature's statements in the thread (statements.ts). */
  runStatements(statements: readonly SqlStatement[]): Promise<StatementResult[]>;
  close(): Promise<void>;
}

/** What an answered request resolves with. */
function replyValue(m: Exclude<WriterReply, { type: "ready" | "pruned" | "failed" }>): unknown {
  switch (m.type) {
    case "done":
      return m.result;
    case "ingested":
      return m.ingest;
    case "pruned-now":
      return m.deleted;
    case "client-deleted":
      return m.deleted;
    case "ran":
      return m.results;
  }
}

/** Starts the writer thread; resolves once it has opened the database and its scheduling policy is set. */
export async function startWriterThread(
  init: WriterInit,
  yieldOptions: WriterYieldOptions,
  onPruned: (beforeMs: number) => void,
): Promise<WriterClient> {
  // Under vitest or tsx the sources are TypeScript: the thread registers tsx (a devDependency) before
  // loading them. Built, it is plain JS and needs nothing.
  const ts = import.meta.url.endsWith(".ts");
  const entry = new URL(`./writer-thread.${ts ? "ts" : "js"}`, import.meta.url);
  const worker = ts
    ? new Worker(
        `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`,
        { eval: true, workerData: init },
      )
    : new Worker(entry, { workerData: init });
  /** In the order sent: the first is the one that has waited longest. */
  const pending = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void; sentAtMs: number }>();
  let nextId = 0;
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    worker.once("exit", (code) => {
      exited = true;
      lag.stop();
      for (const p of pending.values()) p.reject(new StorageError(`the writer thread exited (${code})`, null));
      pending.clear();
      resolve();
    }),
  );
  let lag: WriterLagWatch = { sent() {}, settled() {}, stop() {} };
  const ready = new Promise<string | null>((resolve, reject) => {
    worker.once("error", reject);
    worker.on("message", (m: WriterReply) => {
      if (m.type === "ready") return resolve(m.tid);
      if (m.type === "pruned") return onPruned(m.beforeMs);
      const p = pending.get(m.id);
      if (p === undefined) return;
      pending.delete(m.id);
      lag.settled(p.sentAtMs);
      if (m.type === "failed")
        p.reject(
          m.error.code === "SESSION_CLIENT_MISMATCH"
            ? new SessionOwnerError(m.error.message)
            : new StorageError(m.error.message, m.error.code),
        );
      else p.resolve(replyValue(m) as never);
    });
  });
  lag = await manageWriterPolicy(await ready, {
    ...yieldOptions,
    oldestPendingSentAtMs: () => pending.values().next().value?.sentAtMs,
    warn: (line) => console.warn(`tailprobe: ${line}`),
  });
  const call = <T>(msg: (id: number) => WriterRequest, transfer: ArrayBuffer[] = []): Promise<T> => {
    if (exited) return Promise.reject(new StorageError("the writer thread has stopped", null));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: never) => void, reject, sentAtMs: performance.now() });
      worker.postMessage(msg(id), transfer);
      lag.sent();
    });
  };
  return {
    insertBatch: (batch, meta) => call((id) => ({ type: "insert", id, batch, meta })),
    ingestBody: (body, rules, meta) => {
      // Moved, not copied, unless the bytes share a buffer with others (Node's pool for small bodies).
      const own =
        body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer
          ? body
          : new Uint8Array(body);
      return call((id) => ({ type: "ingest", id, body: own, rules, meta }), [own.buffer as ArrayBuffer]);
    },
    pruneNow: () => call((id) => ({ type: "prune", id })),
    deleteClient: (clientId) => call((id) => ({ type: "delete-client", id, clientId })),
    runStatements: (statements) => call((id) => ({ type: "statements", id, statements })),
    async close() {
      lag.stop();
      if (!exited) worker.postMessage({ type: "close" } satisfies WriterRequest);
      await exit;
    },
  };
}
