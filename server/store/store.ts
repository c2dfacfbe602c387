// The one module that owns the database: everything reads and writes samples through here.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { IngestResult, SampleBatch } from "../../shared/contract/index.js";
import { clientsQuery } from "../query/clients.js";
import { openQueries, type AnswerFrom, type Queries } from "../query/queries.js";
import { migrate } from "./migrate.js";
import { openReadPool } from "./read-pool.js";
import { RAW_DAYS_DEFAULT, ROLLUP_DAYS_DEFAULT, startRetention } from "./retention.js";
import { batchWriter, Codes, type IngestMeta } from "./writer.js";
import { startWriterThread } from "./writer-client.js";
import { WRITER_HOLD_MS_DEFAULT, WRITER_LAG_MS_DEFAULT, type WriterYieldOptions } from "./writer-scheduling.js";
import { loadPublicIdKey, storedClientIds } from "./client-secrets.js";
import { openSqlitePageReader, type PageReader } from "../query/sample-pages.js";
import { deleteClientData } from "./admin-ops.js";
import { timerResolutionQuery } from "./timer-resolution.js";
import type { StoredClient } from "./stored-client.js";
import type { SampleFilter } from "./sample-filter.js";
import { ingestHere, type BodyIngest, type SampleRules } from "../ingest/read-batch.js";

export { SessionOwnerError, type IngestMeta } from "./writer.js";
export { StorageError } from "./writer-client.js";
export type { SampleFilter } from "./sample-filter.js";
export { QueryTooLargeError } from "../query/too-large.js";
export { QueryAbortedError } from "./read-pool.js";
export type { QueryOptions } from "../query/queries.js";

/**
 * Every query is answered asynchronously (server/query/): from rollups merged
 * with the raw samples at the range's edges, or for small ranges from raw
 * samples read in slices on a read-only connection, so the echo endpoints
 * keep answering meanwhile. Queries reject with QueryTooLargeError past the
 * caps in shared/contract/charts.ts.
 */
export interface Store extends Queries {
  /**
   * Stores a batch in one transaction, raw rows and rollups together; settles
   * after the commit. Rejects with SessionOwnerError, or StorageError carrying
   * SQLite's code (SQLITE_FULL, SQLITE_READONLY, SQLITE_BUSY, …).
   */
  insertBatch(batch: SampleBatch, meta: IngestMeta): Promise<IngestResult>;
  /**
   * A POST /api/samples body, read under the rules (server/ingest/read-batch.ts)
   * and stored as insertBatch does, or refused with nothing stored. The
   * threaded SQLite store reads it in its writer thread, off the event loop.
   */
  ingestBody(body: Uint8Array, rules: SampleRules, meta: IngestMeta): Promise<BodyIngest>;
  clients(): Promise<StoredClient[]>;
  /** Coarsest timer resolution (ms) reported by the sessions in the filter's range; null if none did. */
  timerResolution(filter: SampleFilter): Promise<number | null>;
  /** Deletes every sample, rollup share and session of one client (admin API); resolves with the counts. */
  deleteClient(clientId: string): Promise<{ samples: number; sessions: number }>;
  /** Epoch ms before which raw samples have been pruned (--raw-days): older ranges answer from rollups only. */
  rawKeptFromMs(): number;
  /** Runs retention now instead of at its next interval; resolves with the rows deleted. */
  pruneNow(): Promise<number>;
  /** "sqlite" (a file) or "postgres" (a URL), as --db chose. */
  readonly kind: "sqlite" | "postgres";
  /** What --db named, for logs: the file, or the URL with its password replaced by ***. */
  readonly location: string;
  /** The key public client ids derive from (kept in meta: the same for every server on one database). */
  readonly publicIdKey: Buffer;
  /** Every stored clientId, of every server writing to this database (PostgreSQL: as of the last refresh, at most a second old). */
  storedClientIds(): string[];
  /** The targets every server on this database measures (PostgreSQL; SQLite: one process, none beyond its own). */
  deploymentTargets(): readonly string[];
  /** Makes this server's targets known to the other servers on the database (idempotent; SQLite: nothing to do). */
  announceTargets(targets: readonly string[]): void;
  /** Pages of raw samples in time order on a connection of its own (export, forensics). */
  openPageReader(): PageReader;
  /** Stops retention and the writer (after the batches already posted are committed), closes every connection. */
  close(): Promise<void>;
}

/** The SQLite store: also the raw connection, for integrity checks, tests and bulk loads (read-only in the server's store). */
export interface SqliteStore extends Store {
  readonly db: Database.Database;
}

export interface StoreOptions {
  /** Progress of a schema upgrade, one line at a time. */
  log?: (line: string) => void;
  /** Days raw samples are kept (--raw-days). */
  rawDays?: number;
  /** Days hour and day rollups are kept (--rollup-days). */
  rollupDays?: number;
  nowMs?: () => number;
  /** Force one query path (tests, benchmarks); default "auto". */
  answerFrom?: AnswerFrom;
  /** When the writer thread steps up from SCHED_IDLE and back (writer-scheduling.ts); tests shorten them. */
  writerYield?: WriterYieldOptions;
}

/** The WAL is truncated to this size after a checkpoint (bytes); without a limit it keeps its largest size. */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** Page cache of the writer connection (KiB). */
export const WRITER_CACHE_KIB = 64 * 1024;
/** How often the WAL is checkpointed and truncated (ms), beside SQLite's own automatic checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 30_000;
/** How long the writer thread waits for another process's lock (ms); past it, ingest answers 503 + Retry-After. */
export const WRITER_BUSY_TIMEOUT_MS = 1000;

function openWriteConnection(dbPath: string, log: ((line: string) => void) | undefined): Database.Database {
  if (dbPath !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const db = new Database(dbPath);
  // WAL lets queries read while ingest writes; NORMAL still survives a process
  // crash (SIGKILL) with every committed transaction, and skips an fsync per commit.
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
  // SQLite's default 2 MB page cache makes every insert into a large table read its index pages back from the OS.
  db.pragma(`cache_size = -${WRITER_CACHE_KIB}`);
  migrate(db, log);
  // The key public client ids derive from, created here because the server's
  // own connections are read-only afterwards.
  loadPublicIdKey(db);
  return db;
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

const retentionOf = (opts: StoreOptions) => ({
  rawDays: opts.rawDays ?? RAW_DAYS_DEFAULT,
  rollupDays: opts.rollupDays ?? ROLLUP_DAYS_DEFAULT,
});

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

  const readers = openReadPool(dbPath, db);
  const queries = openQueries(readers, () => retention.rawKeptFromMs(), opts.answerFrom);

  return {
    ...sqliteCommon(db, dbPath),
    insertBatch: async (batch, meta) => insertBatch(batch, meta),
    ingestBody: (body, rules, meta) => ingestHere(body, rules, meta, async (batch, m) => insertBatch(batch, m)),
    ...queries,
    clients: () => clientsQuery(readers),
    timerResolution: (filter) => timerResolutionQuery(readers, filter),
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
      readers.close();
      db.close();
    },
  };
}

/**
 * The server's store: schema upgrades run here at start; then every write,
 * retention and checkpoint runs in the writer thread (writer-thread.ts), and
 * this thread only reads, on read-only connections that never wait for a lock.
 */
export async function openStoreThreaded(dbPath: string, opts: StoreOptions = {}): Promise<SqliteStore> {
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
      journalSizeLimitBytes: JOURNAL_SIZE_LIMIT_BYTES,
      cacheKib: WRITER_CACHE_KIB,
      checkpointIntervalMs: CHECKPOINT_INTERVAL_MS,
      busyTimeoutMs: WRITER_BUSY_TIMEOUT_MS,
    },
    opts.writerYield ?? { lagMs: WRITER_LAG_MS_DEFAULT, holdMs: WRITER_HOLD_MS_DEFAULT },
    (beforeMs) => (prunedBeforeMs = beforeMs),
  );
  const readers = openReadPool(dbPath, db);
  const queries = openQueries(readers, () => prunedBeforeMs, opts.answerFrom);
  return {
    ...sqliteCommon(db, dbPath),
    insertBatch: (batch, meta) => writer.insertBatch(batch, meta),
    ingestBody: (body, rules, meta) => writer.ingestBody(body, rules, meta),
    ...queries,
    clients: () => clientsQuery(readers),
    timerResolution: (filter) => timerResolutionQuery(readers, filter),
    deleteClient: (clientId) => writer.deleteClient(clientId),
    rawKeptFromMs: () => prunedBeforeMs,
    pruneNow: () => writer.pruneNow(),
    close: async () => {
      readers.close();
      await writer.close();
      db.close();
    },
  };
}
