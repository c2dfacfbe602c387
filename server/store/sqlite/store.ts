// The SQLite store: the Store (../store.ts) on one file. Two ways to open it:
// openStore writes on the calling thread (tests, benchmarks' bulk loads,
// ":memory:"), openStoreThreaded (the server's) moves every write into the
// writer thread (writer-thread.ts) and keeps this thread to reads.
import Database from "better-sqlite3";
import type { IngestResult, SampleBatch } from "../../../shared/contract/index.js";
import { ingestHere } from "../../ingest/read-batch.js";
import { retentionOf } from "../retention.js";
import type { IngestMeta, Store, StoreOptions } from "../store.js";
import { deleteClientData } from "./admin.js";
import { sqliteIncidents } from "./incidents.js";
import { Codes } from "./codes.js";
import { CHECKPOINT_INTERVAL_MS, openWriteConnection, WRITER_BUSY_TIMEOUT_MS } from "./connection.js";
import { loadPublicIdKey, storedClientIds } from "./meta.js";
import { openSqlitePageReader } from "./page-reader.js";
import { openReadPool } from "./read-pool.js";
import { startRetention } from "./retention.js";
import { sqliteAlertState } from "./alert-state.js";
import { type SqliteWrites, statementRunner } from "./statements.js";
import { sqliteStressRuns } from "./stress-runs.js";
import { batchWriter } from "./writer.js";
import { startWriterThread } from "./writer-client.js";
import { WRITER_HOLD_MS_DEFAULT, WRITER_LAG_MS_DEFAULT, type WriterYieldOptions } from "./writer-yield.js";

/** The SQLite store: also the raw connection, for integrity checks, tests and bulk loads (read-only in the server's store). */
export interface SqliteStore extends Store {
  readonly db: Database.Database;
  /** Writes on the writer's connection, for the tables of features beside the samples (statements.ts). */
  readonly writes: SqliteWrites;
}

export interface SqliteStoreOptions extends StoreOptions {
  /** When the writer thread steps up from SCHED_IDLE and back (writer-yield.ts); tests shorten them. */
  writerYield?: WriterYieldOptions;
}

function sqliteCommon(db: Database.Database, dbPath: string) {
  const publicIdKey = loadPublicIdKey(db);
  return {
    db,
    kind: "sqlite" as const,
    location: dbPath,
    publicIdKey,
    storedClientIds: () => storedClientIds(db),
    deploymentTargets: () => [],
    announceTargets: () => {},
    openPageReader: () => openSqlitePageReader(db),
  };
}

/**
 * A store that writes on the calling thread: tests, benchmarks' bulk loads
 * and ":memory:" databases. The server uses openStoreThreaded.
 */
export function openStore(dbPath: string, opts: StoreOptions = {}): SqliteStore {
  const db = openWriteConnection(dbPath, opts.log);
  const retention = startRetention(db, retentionOf(opts), opts.nowMs ?? Date.now);
  // Readers holding an old snapshot make a checkpoint stop short; it then truncates on a later turn.
  const checkpoint = setInterval(() => db.pragma("wal_checkpoint(TRUNCATE)"), CHECKPOINT_INTERVAL_MS);
  checkpoint.unref();
  const codes = new Codes(db);
  const writeGroup = batchWriter(db, codes);
  // On the calling thread each batch is its own group: its caller awaits it alone.
  const insertBatch = (batch: SampleBatch, meta: IngestMeta): IngestResult => {
    const [r] = writeGroup([{ batch, meta }]);
    if (r instanceof Error) throw r;
    return r!;
  };
  const runStatements = statementRunner(db);
  const readPool = openReadPool(dbPath, db);
  const writes: SqliteWrites = { run: async (statements) => runStatements(statements) };
  return {
    ...sqliteCommon(db, dbPath),
    readPool,
    writes,
    incidents: sqliteIncidents(readPool, writes),
    stressRuns: sqliteStressRuns(readPool, writes),
    alertState: sqliteAlertState(readPool, writes),
    insertBatch: async (batch, meta) => insertBatch(batch, meta),
    ingestBody: (body, rules, meta) => ingestHere(body, rules, meta, async (batch, m) => insertBatch(batch, m)),
    deleteClient: async (clientId) => {
      const deleted = deleteClientData(db, clientId);
      codes.reload();
      return deleted;
    },
    rawKeptFromMs: () => retention.rawKeptFromMs(),
    pruneNow: () => retention.pruneNow(),
    close: async () => {
      retention.stop();
      clearInterval(checkpoint);
      readPool.close();
      db.close();
    },
  };
}

/**
 * The server's store: schema upgrades run here at start; then every write,
 * retention and checkpoint runs in the writer thread (writer-thread.ts), and
 * this thread only reads, on read-only connections that never wait for a lock.
 */
export async function openStoreThreaded(dbPath: string, opts: SqliteStoreOptions = {}): Promise<SqliteStore> {
  if (dbPath === ":memory:") return openStore(dbPath, opts);
  openWriteConnection(dbPath, opts.log).close();
  const db = new Database(dbPath, { readonly: true });
  let prunedBeforeMs = Number(
    (db.prepare("SELECT value FROM meta WHERE key = 'raw_pruned_before_ms'").get() as { value: string } | undefined)
      ?.value ?? 0,
  );
  const writer = await startWriterThread(
    {
      dbPath,
      retention: retentionOf(opts),
      nowAtStartMs: (opts.nowMs ?? Date.now)(),
      busyTimeoutMs: WRITER_BUSY_TIMEOUT_MS,
    },
    opts.writerYield ?? { lagMs: WRITER_LAG_MS_DEFAULT, holdMs: WRITER_HOLD_MS_DEFAULT },
    (beforeMs) => (prunedBeforeMs = beforeMs),
  );
  const readPool = openReadPool(dbPath, db);
  const writes: SqliteWrites = { run: (statements) => writer.runStatements(statements) };
  return {
    ...sqliteCommon(db, dbPath),
    readPool,
    writes,
    incidents: sqliteIncidents(readPool, writes),
    stressRuns: sqliteStressRuns(readPool, writes),
    alertState: sqliteAlertState(readPool, writes),
    insertBatch: (batch, meta) => writer.insertBatch(batch, meta),
    ingestBody: (body, rules, meta) => writer.ingestBody(body, rules, meta),
    deleteClient: (clientId) => writer.deleteClient(clientId),
    rawKeptFromMs: () => prunedBeforeMs,
    pruneNow: () => writer.pruneNow(),
    close: async () => {
      readPool.close();
      await writer.close();
      db.close();
    },
  };
}
