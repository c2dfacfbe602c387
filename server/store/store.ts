// The one module that owns the database: everything reads and writes samples through here.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { ClientInfo } from "../../shared/charts.js";
import type { IngestResult, SampleBatch } from "../../shared/protocol.js";
import { openQueries, type AnswerFrom, type Queries } from "../query/queries.js";
import { clientsQuery } from "./chart-queries.js";
import { migrate } from "./migrate.js";
import { openReadPool } from "./read-pool.js";
import { RAW_DAYS_DEFAULT, ROLLUP_DAYS_DEFAULT, startRetention } from "./retention.js";
import { batchWriter, Codes, type IngestMeta } from "./writer.js";

export { SessionOwnerError, type IngestMeta } from "./writer.js";
export { filterFromQuery, type SampleFilter } from "./sample-filter.js";
export { QueryTooLargeError } from "./chart-queries.js";
export { QueryAbortedError } from "./read-pool.js";
export type { QueryOptions } from "../query/queries.js";

/**
 * Every query is answered asynchronously (server/query/): from rollups merged
 * with the raw samples at the range's edges, or for small ranges from raw
 * samples read in slices on a read-only connection, so the echo endpoints
 * keep answering meanwhile. Queries reject with QueryTooLargeError past the
 * caps in shared/charts.ts.
 */
export interface Store extends Queries {
  /** Stores a batch in one transaction, raw rows and rollups together; returns after the commit. */
  insertBatch(batch: SampleBatch, meta: IngestMeta): IngestResult;
  clients(): Promise<ClientInfo[]>;
  /** Epoch ms before which raw samples have been pruned (--raw-days): older ranges answer from rollups only. */
  rawKeptFromMs(): number;
  /** Runs retention now instead of at its next interval; resolves with the rows deleted. */
  pruneNow(): Promise<number>;
  /** Raw access for integrity checks and tests. */
  readonly db: Database.Database;
  close(): void;
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
}

/** The WAL is truncated to this size after a checkpoint (bytes); without a limit it keeps its largest size. */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** Page cache of the writer connection (KiB). */
export const WRITER_CACHE_KIB = 64 * 1024;
/** How often the WAL is checkpointed and truncated (ms), beside SQLite's own automatic checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 30_000;

export function openStore(dbPath: string, opts: StoreOptions = {}): Store {
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
  migrate(db, opts.log);
  const retention = startRetention(
    db,
    { rawDays: opts.rawDays ?? RAW_DAYS_DEFAULT, rollupDays: opts.rollupDays ?? ROLLUP_DAYS_DEFAULT },
    opts.nowMs ?? Date.now,
  );
  // Readers holding an old snapshot make a checkpoint stop short; it then truncates on a later turn.
  const checkpoint = setInterval(() => db.pragma("wal_checkpoint(TRUNCATE)"), CHECKPOINT_INTERVAL_MS);
  checkpoint.unref();
  const insertBatch = batchWriter(db, new Codes(db));

  const readers = openReadPool(dbPath, db);
  const queries = openQueries(readers, () => retention.rawKeptFromMs(), opts.answerFrom);

  return {
    db,
    insertBatch,
    ...queries,
    clients: () => clientsQuery(readers),
    rawKeptFromMs: () => retention.rawKeptFromMs(),
    pruneNow: () => retention.pruneNow(),
    close: () => {
      retention.stop();
      clearInterval(checkpoint);
      readers.close();
      db.close();
    },
  };
}
