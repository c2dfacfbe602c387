// The one module that owns the database: everything reads and writes samples through here.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import {
  DEFAULT_BINS_PER_DECADE,
  type CdfResponse,
  type ClientInfo,
  type HeatmapResponse,
  type HistogramResponse,
  type TimeseriesResponse,
} from "../../shared/charts.js";
import type { IngestResult, SampleBatch, StatsRow } from "../../shared/protocol.js";
import { cdfQuery, clientsQuery, heatmapQuery, histogramQuery, statsQuery, timeseriesQuery } from "./chart-queries.js";
import { openReadPool, Pace, SLICE_MS } from "./read-pool.js";
import type { SampleFilter } from "./sample-filter.js";
import { migrate } from "./migrate.js";
import { RAW_DAYS_DEFAULT, ROLLUP_DAYS_DEFAULT, startRetention } from "./retention.js";
import { batchWriter, Codes, type IngestMeta } from "./writer.js";
import type { RacesResponse } from "../../shared/races.js";
import { racesQuery } from "./race-queries.js";

export { SessionOwnerError, type IngestMeta } from "./writer.js";

export { filterFromQuery, type SampleFilter } from "./sample-filter.js";
export { QueryTooLargeError } from "./chart-queries.js";
export { QueryAbortedError } from "./read-pool.js";

export interface QueryOptions {
  /** Abort to stop the query at its next slice; it then rejects with QueryAbortedError. */
  signal?: AbortSignal | undefined;
}

/**
 * Every query is answered asynchronously: it reads on a read-only connection
 * in short slices so the echo endpoints keep answering meanwhile, and may
 * later be answered from pre-aggregated histograms instead of raw samples.
 * Queries reject with QueryTooLargeError past the caps in shared/charts.ts.
 */
export interface Store {
  /** Stores a batch in one transaction; returns after the commit. */
  insertBatch(batch: SampleBatch, meta: IngestMeta): IngestResult;
  stats(filter: SampleFilter, options?: QueryOptions): Promise<StatsRow[]>;
  histogram(filter: SampleFilter, options: QueryOptions & { binsPerDecade?: number | undefined }): Promise<HistogramResponse>;
  cdf(filter: SampleFilter, options?: QueryOptions): Promise<CdfResponse>;
  /** bucketMs undefined: chosen from the range (chooseBucketMs). */
  timeseries(filter: SampleFilter, options: QueryOptions & { bucketMs?: number | undefined }): Promise<TimeseriesResponse>;
  heatmap(
    filter: SampleFilter,
    options: QueryOptions & { bucketMs?: number | undefined; binsPerDecade?: number | undefined },
  ): Promise<HeatmapResponse>;
  clients(): Promise<ClientInfo[]>;
  /** Availability per server and best-of-two's wins and savings (GET /api/races). */
  races(filter: SampleFilter, options?: QueryOptions): Promise<RacesResponse>;
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
}

/** The WAL is truncated to this size after a checkpoint (bytes); without a limit it keeps its largest size. */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
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
  const pace = (o: QueryOptions | undefined) => new Pace(SLICE_MS, o?.signal);

  return {
    db,
    insertBatch,
    stats: (filter, o) => statsQuery(readers, filter, pace(o)),
    histogram: (filter, o) => histogramQuery(readers, filter, o.binsPerDecade ?? DEFAULT_BINS_PER_DECADE, pace(o)),
    cdf: (filter, o) => cdfQuery(readers, filter, pace(o)),
    timeseries: (filter, o) => timeseriesQuery(readers, filter, o.bucketMs, pace(o)),
    heatmap: (filter, o) =>
      heatmapQuery(readers, filter, o.bucketMs, o.binsPerDecade ?? DEFAULT_BINS_PER_DECADE, pace(o)),
    clients: () => clientsQuery(readers),
    races: (filter, o) => racesQuery(readers, filter, pace(o)),
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
