// Rollups gathered from the rows of one write (an ingest batch, a migration
// chunk, the edges of a query), keyed by (level, bucket start, series,
// client, class), then merged into the rollups table in the same transaction.
import { emptyRollup, encodeRollup, mergeEncoded, mergeInto, record, type Rollup } from "../../shared/rollup.js";
import { LEVEL_MS } from "./rollup-class.js";

export interface RollupCell {
  level: number;
  startMs: number;
  series: number;
  client: number;
  cls: number;
  failures: number;
  skipped: number;
  lat: Rollup;
  tmo: Rollup;
  winsWs: number;
  winsJsonp: number;
  margin: Rollup;
}

export function emptyCell(level: number, startMs: number, series: number, client: number, cls: number): RollupCell {
  return { level, startMs, series, client, cls, failures: 0, skipped: 0, lat: emptyRollup(), tmo: emptyRollup(), winsWs: 0, winsJsonp: 0, margin: emptyRollup() };
}

/** Adds cell `b` into `a` (same series; exact, as rollups merge). */
export function mergeCell(a: RollupCell, b: RollupCell): void {
  a.failures += b.failures;
  a.skipped += b.skipped;
  a.winsWs += b.winsWs;
  a.winsJsonp += b.winsJsonp;
  mergeInto(a.lat, b.lat);
  mergeInto(a.tmo, b.tmo);
  mergeInto(a.margin, b.margin);
}

/** What one stored row adds to its rollups. Latencies in integer µs. */
export interface RollupRow {
  t: number;
  series: number;
  client: number;
  cls: number;
  /** 0 ok, 1 timeout, 2 error, 3 skipped (OUTCOMES order). */
  outcome: number;
  us: number | null;
  /** best2: 0 ws, 1 jsonp (BEST2_LEGS order), null otherwise. */
  winner: number | null;
  otherUs: number | null;
  /** tcprtt: the series its min RTT is reported under, and the value. */
  minrttSeries: number | null;
  minrttUs: number | null;
}

export function addToCell(c: RollupCell, r: RollupRow): void {
  if (r.outcome === 3) c.skipped++;
  else if (r.outcome !== 0 || r.us === null) c.failures++;
  if (r.us === null) return;
  if (r.outcome === 0) {
    record(c.lat, r.us);
    if (r.winner === 0) c.winsWs++;
    else if (r.winner === 1) c.winsJsonp++;
    if (r.otherUs !== null) record(c.margin, Math.max(0, r.otherUs - r.us));
  } else if (r.outcome === 1) record(c.tmo, r.us);
}

/**
 * Every sample also adds to an aggregate row per (level, bucket, series) with
 * client ANY_CLIENT and class ANY_CLASS: a query with no client or flag
 * filter (the page's default) reads one row per bucket and series instead of
 * one per client and class (12× fewer on a month of four clients).
 */
export const ANY_CLIENT = 0;
export const ANY_CLASS = 255;

export class RollupBatch {
  readonly cells = new Map<string, RollupCell>();

  private cell(level: number, startMs: number, series: number, client: number, cls: number): RollupCell {
    const key = `${level}|${startMs}|${series}|${client}|${cls}`;
    let c = this.cells.get(key);
    if (c === undefined) this.cells.set(key, (c = emptyCell(level, startMs, series, client, cls)));
    return c;
  }

  /** Adds every cell of `other` (another write's rollups) into this one. */
  mergeFrom(other: RollupBatch): void {
    for (const [key, o] of other.cells) {
      const c = this.cells.get(key);
      if (c === undefined) {
        this.cells.set(key, o);
        continue;
      }
      mergeCell(c, o);
    }
  }

  add(r: RollupRow): void {
    for (let level = 0; level < LEVEL_MS.length; level++) {
      const width = LEVEL_MS[level]!;
      const startMs = r.t - (r.t % width);
      for (const [client, cls] of [[r.client, r.cls], [ANY_CLIENT, ANY_CLASS]] as const) {
        addToCell(this.cell(level, startMs, r.series, client, cls), r);
        if (r.minrttSeries !== null && r.minrttUs !== null) record(this.cell(level, startMs, r.minrttSeries, client, cls).lat, r.minrttUs);
      }
    }
  }
}

/** A rollups row as stored. */
export interface StoredCell {
  failures: number;
  skipped: number;
  lat: Uint8Array | null;
  tmo: Uint8Array | null;
  wins_ws: number;
  wins_jsonp: number;
  margin: Uint8Array | null;
}

/** Adds a stored row into a cell. */
export function mergeStored(c: RollupCell, s: StoredCell): void {
  c.failures += s.failures;
  c.skipped += s.skipped;
  c.winsWs += s.wins_ws;
  c.winsJsonp += s.wins_jsonp;
  if (s.lat !== null) mergeEncoded(c.lat, s.lat);
  if (s.tmo !== null) mergeEncoded(c.tmo, s.tmo);
  if (s.margin !== null) mergeEncoded(c.margin, s.margin);
}

export const blobOf = (r: Rollup): Uint8Array | null => (r.count === 0 ? null : encodeRollup(r));
