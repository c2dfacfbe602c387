// The one reader behind every query endpoint: merges the rollups of whole
// 5 minutes, hours and days with rollups built on the fly from the raw samples
// at the range's partial edges, per series and per time bucket. Each endpoint
// (stats.ts, histogram.ts, …) turns the merged cells into its answer.
import { CLASS_COUNT, LEVEL_MS, classOf, classesFor } from "../store/rollup-class.js";
import {
  addToCell,
  ANY_CLASS,
  ANY_CLIENT,
  emptyCell,
  mergeStored,
  type RollupCell,
  type StoredCell,
} from "../store/rollup-batch.js";
import { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { seriesWanted, type SampleFilter } from "../store/sample-filter.js";
import { decompose, RAW, runsOf, spansOf, type Piece } from "./plan.js";
import { TCP_MIN_RTT_SERIES } from "../../shared/contract/index.js";
import { DenseRollup } from "../../shared/dense-rollup.js";
import { mergeInto, record, type Rollup } from "../../shared/rollup.js";

export interface SeriesInfo {
  id: number;
  method: string;
  target: string;
}

/** Merged cells per series: one per time bucket (index from the axis), or index 0 without an axis. */
export type Merged = Map<number, { series: SeriesInfo; buckets: Map<number, RollupCell> }>;

export interface ReadContext {
  pool: ReadPool;
  /** Epoch ms before which raw samples are gone (retention). */
  rawKeptFromMs: () => number;
}

export interface Axis {
  t0: number;
  bucketMs: number;
  buckets: number;
}

/** Rows of raw samples estimated past which a query reads rollups instead (below it, the exact raw path is fast). */
export const EXACT_ROWS_MAX = 50_000;

/**
 * Whether rollups answer this query: its filters are rollup classes, its
 * time buckets whole multiples of 5 minutes, and the raw path would read many rows (or
 * raw samples of the range are gone).
 */
export async function rollupsAnswer(ctx: ReadContext, f: SampleFilter, bucketMs?: number): Promise<boolean> {
  if (classesFor(f) === null) return false;
  if (bucketMs !== undefined && bucketMs % LEVEL_MS[0] !== 0) return false;
  if (f.fromMs < ctx.rawKeptFromMs()) return true;
  return (await ctx.pool.raw.estimateRows(f.fromMs, f.toMs, EXACT_ROWS_MAX, new Pace())) > EXACT_ROWS_MAX;
}

/**
 * First stored sample at or after fromMs (raw, else the oldest hour rollup), for "everything" ranges.
 * The hour is looked up among the aggregate rows: one index range, where any row would walk the level.
 */
export async function firstSampleMs(ctx: ReadContext, f: SampleFilter): Promise<number | null> {
  const rows = await ctx.pool.all<{ hour: number | null }>(
    `SELECT min(start_ms) AS hour FROM rollups WHERE level = 1 AND client = ${ANY_CLIENT} AND class = ${ANY_CLASS} AND start_ms >= ? AND start_ms <= ?`,
    [f.fromMs - LEVEL_MS[1], f.toMs],
  );
  const hour = rows[0]?.hour ?? null;
  // Older than the raw retention, the hour rollup is the answer: no raw sample is left to look for.
  if (hour !== null && hour < ctx.rawKeptFromMs()) return Math.max(f.fromMs, hour);
  const raw = await ctx.pool.raw.firstT(f.fromMs, f.toMs);
  return raw ?? (hour === null ? null : Math.max(f.fromMs, hour));
}

export async function readMerged(ctx: ReadContext, f: SampleFilter, axis: Axis | null, pace: Pace): Promise<Merged> {
  const classes = classesFor(f);
  if (classes === null) throw new Error("rollups cannot answer this filter");
  const out: Merged = new Map();
  const wanted = seriesWanted(f);
  const allSeries = await ctx.pool.all<SeriesInfo>("SELECT id, method, target FROM series", []);
  const series = allSeries.filter(
    (s) => wanted(s.method) && (f.targets === undefined || f.targets.length === 0 || f.targets.includes(s.target)),
  );
  if (series.length === 0) return out;
  const byId = new Map(series.map((s) => [s.id, s]));
  let client: number | null = null;
  const clientIds = (await ctx.pool.all<{ id: number }>("SELECT id FROM clients", [])).map((c) => c.id);
  if (clientIds.length === 0) return out;
  if (f.clientId !== undefined) {
    const rows = await ctx.pool.all<{ id: number }>("SELECT id FROM clients WHERE client_key = ?", [f.clientId]);
    if (rows[0] === undefined) return out;
    client = rows[0].id;
  }

  const rawFrom = ctx.rawKeptFromMs();
  const pieces: Piece[] = [];
  for (const [a, b] of spansOf(f.fromMs, f.toMs, f.exclude)) {
    if (axis === null) pieces.push(...decompose(a, b, rawFrom));
    else
      for (let i = 0; i < axis.buckets; i++) {
        const lo = Math.max(a, axis.t0 + i * axis.bucketMs);
        const hi = Math.min(b, axis.t0 + (i + 1) * axis.bucketMs);
        if (lo < hi) pieces.push(...decompose(lo, hi, rawFrom));
      }
  }
  const bucketOf = (t: number) => (axis === null ? 0 : Math.floor((t - axis.t0) / axis.bucketMs));
  const cellOf = (seriesId: number, t: number): RollupCell | null => {
    const s = byId.get(seriesId);
    if (s === undefined) return null;
    const i = bucketOf(t);
    if (axis !== null && (i < 0 || i >= axis.buckets)) return null;
    let e = out.get(seriesId);
    if (e === undefined) out.set(seriesId, (e = { series: s, buckets: new Map() }));
    let c = e.buckets.get(i);
    if (c === undefined) e.buckets.set(i, (c = emptyCell(-1, 0, seriesId, 0, 0)));
    return c;
  };

  // A query without a time axis (stats, CDF, histogram) merges every stored row
  // of the range into one cell per series: thousands of rows, so into dense
  // accumulators, folded into the cells at the end.
  const dense = axis === null ? new Map<number, DenseCell>() : null;
  const denseOf = (seriesId: number): DenseCell | null => {
    if (dense === null || !byId.has(seriesId)) return null;
    let d = dense.get(seriesId);
    if (d === undefined) dense.set(seriesId, (d = emptyDenseCell()));
    return d;
  };

  const seriesIn = `series IN (${series.map((s) => s.id).join(", ")})`;
  const classSet = new Set(classes);
  for (const run of runsOf(pieces)) {
    if (run.level === RAW) await readRaw(ctx, run, client, classSet, allSeries, cellOf, pace);
    else {
      const conds = ["level = ?", "start_ms >= ?", "start_ms < ?", seriesIn];
      const params: number[] = [run.level, run.fromMs, run.toMs];
      // Equalities on the key's leading columns (level, client, class): one index range per pair.
      if (client === null && classes.length === CLASS_COUNT)
        conds.push(`client = ${ANY_CLIENT}`, `class = ${ANY_CLASS}`);
      else
        conds.push(
          `client IN (${client === null ? clientIds.join(", ") : client})`,
          `class IN (${classes.join(", ")})`,
        );
      await ctx.pool.scan(
        `SELECT series, start_ms, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin FROM rollups WHERE ${conds.join(" AND ")}`,
        params,
        (row) => {
          const [seriesId, startMs, failures, skipped, lat, tmo, winsWs, winsJsonp, margin] = row as [
            number,
            number,
            ...unknown[],
          ];
          if (dense !== null) {
            const d = denseOf(seriesId);
            if (d !== null)
              addStoredDense(d, {
                failures,
                skipped,
                lat,
                tmo,
                wins_ws: winsWs,
                wins_jsonp: winsJsonp,
                margin,
              } as StoredCell);
            return;
          }
          const c = cellOf(seriesId, startMs);
          if (c !== null)
            mergeStored(c, {
              failures,
              skipped,
              lat,
              tmo,
              wins_ws: winsWs,
              wins_jsonp: winsJsonp,
              margin,
            } as StoredCell);
        },
        pace,
      );
    }
  }
  if (dense !== null)
    for (const [seriesId, d] of dense) {
      const c = cellOf(seriesId, 0);
      if (c !== null) foldDense(c, d);
    }
  return out;
}

interface DenseCell {
  failures: number;
  skipped: number;
  winsWs: number;
  winsJsonp: number;
  lat: DenseRollup;
  tmo: DenseRollup;
  margin: DenseRollup;
}

const emptyDenseCell = (): DenseCell => ({
  failures: 0,
  skipped: 0,
  winsWs: 0,
  winsJsonp: 0,
  lat: new DenseRollup(),
  tmo: new DenseRollup(),
  margin: new DenseRollup(),
});

function addStoredDense(d: DenseCell, s: StoredCell): void {
  d.failures += s.failures;
  d.skipped += s.skipped;
  d.winsWs += s.wins_ws;
  d.winsJsonp += s.wins_jsonp;
  if (s.lat !== null) d.lat.addEncoded(s.lat);
  if (s.tmo !== null) d.tmo.addEncoded(s.tmo);
  if (s.margin !== null) d.margin.addEncoded(s.margin);
}

/** The stored rows' sums into a cell that may already hold the raw edges'. Dense buckets go in first, in ascending order. */
function foldDense(c: RollupCell, d: DenseCell): void {
  c.failures += d.failures;
  c.skipped += d.skipped;
  c.winsWs += d.winsWs;
  c.winsJsonp += d.winsJsonp;
  const fold = (dense: DenseRollup, edge: Rollup): Rollup => {
    const r = dense.toRollup();
    mergeInto(r, edge);
    return r;
  };
  c.lat = fold(d.lat, c.lat);
  c.tmo = fold(d.tmo, c.tmo);
  c.margin = fold(d.margin, c.margin);
}

/** Raw samples of an edge run folded into cells the way the ingest folds them into rollups. */
async function readRaw(
  ctx: ReadContext,
  run: Piece,
  client: number | null,
  classes: Set<number>,
  allSeries: SeriesInfo[],
  cellOf: (seriesId: number, t: number) => RollupCell | null,
  pace: Pace,
): Promise<void> {
  const minrttSeries = new Map<number, number>();
  const ids = new Map(allSeries.map((s) => [`${s.method} ${s.target}`, s.id]));
  for (const s of allSeries)
    if (s.method === "tcprtt") minrttSeries.set(s.id, ids.get(`${TCP_MIN_RTT_SERIES} ${s.target}`) ?? -1);
  const methods = new Map(allSeries.map((s) => [s.id, s.method]));
  await ctx.pool.raw.edgeRows(
    run.fromMs,
    run.toMs,
    client,
    (series) => methods.get(series),
    ({ t, series, outcome, us, flags, lateUs, winner, otherUs, minrttUs, load }) => {
      if (!classes.has(classOf(flags, lateUs, load))) return;
      const c = cellOf(series, t);
      if (c !== null)
        addToCell(c, {
          t,
          series,
          client: 0,
          cls: 0,
          outcome,
          us,
          winner,
          otherUs,
          minrttSeries: null,
          minrttUs: null,
          // Queries read no server time: the change finder reads it from the rollups alone.
          serverUs: null,
        });
      if (minrttUs !== null) {
        const m = cellOf(minrttSeries.get(series) ?? -1, t);
        if (m !== null) record(m.lat, minrttUs);
      }
    },
    pace,
  );
}
