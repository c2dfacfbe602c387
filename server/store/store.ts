// The one module that owns the database: everything reads and writes samples through here.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import {
  DEFAULT_BINS_PER_DECADE,
  type CdfResponse,
  type HeatmapResponse,
  type HistogramResponse,
  type TimeseriesResponse,
} from "../../shared/charts.js";
import type { IngestResult, SampleBatch, StatsRow } from "../../shared/protocol.js";
import { cdfQuery, clientsQuery, heatmapQuery, histogramQuery, statsQuery, timeseriesQuery } from "./chart-queries.js";
import { openReadPool, Pace, SLICE_MS } from "./read-pool.js";
import type { StoredClient } from "./stored-client.js";
import type { SampleFilter } from "./sample-filter.js";
import { FLAG, FLAG_KNOWN_SHIFT, migrate } from "./schema.js";
import type { RacesResponse } from "../../shared/races.js";
import { racesQuery } from "./race-queries.js";
import { timerResolutionQuery } from "./timer-resolution.js";

export interface IngestMeta {
  userAgent: string | null;
  receivedAtMs: number;
}

export class SessionOwnerError extends Error {
  readonly code = "SESSION_CLIENT_MISMATCH";
}

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
  /** Coarsest timer resolution (ms) reported by the sessions in the filter; null if none did. */
  timerResolution(filter: SampleFilter, options?: QueryOptions): Promise<number | null>;
  histogram(filter: SampleFilter, options: QueryOptions & { binsPerDecade?: number | undefined }): Promise<HistogramResponse>;
  cdf(filter: SampleFilter, options?: QueryOptions): Promise<CdfResponse>;
  /** bucketMs undefined: chosen from the range (chooseBucketMs). */
  timeseries(filter: SampleFilter, options: QueryOptions & { bucketMs?: number | undefined }): Promise<TimeseriesResponse>;
  heatmap(
    filter: SampleFilter,
    options: QueryOptions & { bucketMs?: number | undefined; binsPerDecade?: number | undefined },
  ): Promise<HeatmapResponse>;
  clients(): Promise<StoredClient[]>;
  /** Availability per server and best-of-two's wins and savings (GET /api/races). */
  races(filter: SampleFilter, options?: QueryOptions): Promise<RacesResponse>;
  /** Raw access for integrity checks and tests. */
  readonly db: Database.Database;
  close(): void;
}

function packFlags(s: SampleBatch["samples"][number]): number {
  let flags = 0;
  for (const key of Object.keys(FLAG) as (keyof typeof FLAG)[]) {
    const v = s[key];
    if (v === undefined) continue;
    flags |= FLAG[key] << FLAG_KNOWN_SHIFT;
    if (v) flags |= FLAG[key];
  }
  return flags;
}

/** How long opening the database may wait for another process's lock (ms). */
const STARTUP_BUSY_TIMEOUT_MS = 5000;

export function openStore(dbPath: string): Store {
  if (dbPath !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const db = new Database(dbPath);
  // WAL lets queries read while ingest writes; NORMAL still survives a process
  // crash (SIGKILL) with every committed transaction, and skips an fsync per commit.
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // Start-up may wait for a lock; after it, this connection runs on the event
  // loop, which must never wait: a locked database is SQLITE_BUSY at once (503).
  db.pragma(`busy_timeout = ${STARTUP_BUSY_TIMEOUT_MS}`);
  migrate(db);
  db.pragma("busy_timeout = 0");

  const findSession = db.prepare<[string], { id: number; client_id: string }>(
    "SELECT id, client_id FROM sessions WHERE session_key = ?",
  );
  const addSession = db.prepare(
    "INSERT INTO sessions (session_key, client_id, label, user_agent, first_seen_ms, timer_resolution_us) VALUES (?, ?, ?, ?, ?, ?)",
  );
  // The first resolution a session reports is kept: it cannot change within a page's life.
  const setTimerResolution = db.prepare("UPDATE sessions SET timer_resolution_us = ? WHERE id = ? AND timer_resolution_us IS NULL");
  const updateLabel = db.prepare("UPDATE sessions SET label = ? WHERE id = ? AND label IS NOT ?");
  const addSample = db.prepare(`
    INSERT OR IGNORE INTO samples
      (session, seq, t, method, target, ms, outcome, scheduled_t, late_ms, hidden_ms, flags,
       reason, winner, other_ms, other_outcome, minrtt, server_lag_ms, server_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);

  const insertBatchTx = db.transaction((batch: SampleBatch, meta: IngestMeta): IngestResult => {
    const resolutionUs = batch.timerResolutionMs === undefined ? null : batch.timerResolutionMs * 1000;
    let session = findSession.get(batch.sessionId);
    if (session === undefined) {
      const info = addSession.run(
        batch.sessionId,
        batch.clientId,
        batch.label ?? null,
        meta.userAgent,
        meta.receivedAtMs,
        resolutionUs,
      );
      session = { id: Number(info.lastInsertRowid), client_id: batch.clientId };
    } else if (session.client_id !== batch.clientId) {
      throw new SessionOwnerError("sessionId belongs to another clientId");
    }
    if (batch.label !== undefined) updateLabel.run(batch.label, session.id, batch.label);
    if (resolutionUs !== null) setTimerResolution.run(resolutionUs, session.id);
    let accepted = 0;
    for (const s of batch.samples) {
      const info = addSample.run(
        session.id,
        s.seq,
        s.t,
        s.method,
        s.target,
        s.ms,
        s.outcome,
        s.scheduledT ?? null,
        s.lateMs ?? null,
        s.hiddenMs ?? null,
        packFlags(s),
        s.reason ?? null,
        s.winner ?? null,
        s.otherMs ?? null,
        s.otherOutcome ?? null,
        s.minrtt ?? null,
        s.serverLagMs ?? null,
        s.serverMs ?? null,
      );
      accepted += info.changes;
    }
    return { accepted, duplicates: batch.samples.length - accepted };
  });

  const readers = openReadPool(dbPath, db);
  const pace = (o: QueryOptions | undefined) => new Pace(SLICE_MS, o?.signal);

  return {
    db,
    insertBatch: (batch, meta) => insertBatchTx.immediate(batch, meta),
    stats: (filter, o) => statsQuery(readers, filter, pace(o)),
    timerResolution: (filter, o) => timerResolutionQuery(readers, filter, pace(o)),
    histogram: (filter, o) => histogramQuery(readers, filter, o.binsPerDecade ?? DEFAULT_BINS_PER_DECADE, pace(o)),
    cdf: (filter, o) => cdfQuery(readers, filter, pace(o)),
    timeseries: (filter, o) => timeseriesQuery(readers, filter, o.bucketMs, pace(o)),
    heatmap: (filter, o) =>
      heatmapQuery(readers, filter, o.bucketMs, o.binsPerDecade ?? DEFAULT_BINS_PER_DECADE, pace(o)),
    clients: () => clientsQuery(readers),
    races: (filter, o) => racesQuery(readers, filter, pace(o)),
    close: () => {
      readers.close();
      db.close();
    },
  };
}
