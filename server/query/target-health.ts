// Per server and time bucket, how its probes ended and how fast they were,
// every method of the filter merged (the status page: uptime from every
// probe of a server, latency from the browser's own). Always from rollups
// (raw samples only at the range's partial edges). Day buckets, the status
// page's, take a faster way for their whole days: the day level's aggregate
// rows in one scan, in time order, each day's latencies merged into one dense
// accumulator per server and summarised before the next day's begin, so 90
// days of ten servers cost about what one /api/stats over them does.
import { DenseRollup } from "../../shared/dense-rollup.js";
import { encodedCount } from "../../shared/rollup-codec.js";
import { quantiles } from "../../shared/rollup.js";
import type { Pace } from "../store/pace.js";
import { emptyCell, mergeCell, ANY_CLASS, ANY_CLIENT, type RollupCell } from "../store/rollup-batch.js";
import { LEVEL_MS } from "../store/rollup-class.js";
import { seriesWanted, type SampleFilter } from "../store/sample-filter.js";
import { msOf, percentilesMs } from "./cells.js";
import { readMerged, type Axis, type ReadContext, type SeriesInfo } from "./reader.js";

export interface TargetBucket {
  /** Probes that answered. */
  ok: number;
  /** Probes that timed out or failed (skipped ticks are neither). */
  failures: number;
  /** Percentiles of the latency methods' ok probes (ms, within ±1 %); null with none. */
  p50: number | null;
  p99: number | null;
}

export interface TargetBuckets {
  target: string;
  /** One per axis bucket (one in all without an axis). */
  buckets: TargetBucket[];
}

export interface TargetHealthQuery {
  /** Buckets, or null for one over the whole range. */
  axis: Axis | null;
  /** Methods whose ok latencies make the percentiles (the others count in ok and failures only). */
  latencyMethods: readonly string[];
}

const DAY_LEVEL = LEVEL_MS.indexOf(86_400_000);
const DAY_MS = LEVEL_MS[DAY_LEVEL]!;

type Table = Map<string, TargetBucket[]>;

function bucketsOf(table: Table, target: string, n: number): TargetBucket[] {
  let b = table.get(target);
  if (b === undefined) {
    b = Array.from({ length: n }, () => ({ ok: 0, failures: 0, p50: null, p99: null }));
    table.set(target, b);
  }
  return b;
}

/** Buckets [first, first + n) of the axis through the general reader: cells per series and bucket, merged per server. */
async function mergedBuckets(
  ctx: ReadContext,
  filter: SampleFilter,
  axis: Axis | null,
  latency: ReadonlySet<string>,
  into: Table,
  n: number,
  first: number,
  pace: Pace,
): Promise<void> {
  const merged = await readMerged(ctx, filter, axis, pace);
  const lat = new Map<string, Map<number, RollupCell>>();
  for (const { series, buckets } of merged.values()) {
    const out = bucketsOf(into, series.target, n);
    let cells = lat.get(series.target);
    if (cells === undefined) lat.set(series.target, (cells = new Map()));
    for (const [i, c] of buckets) {
      const k = first + i;
      if (k < 0 || k >= n) continue;
      out[k]!.failures += c.failures;
      out[k]!.ok += c.lat.count;
      if (!latency.has(series.method)) continue;
      let cell = cells.get(k);
      if (cell === undefined) cells.set(k, (cell = emptyCell(-1, 0, -1, 0, 0)));
      mergeCell(cell, c);
    }
    await pace.maybeYield();
  }
  for (const [target, cells] of lat)
    for (const [k, cell] of cells) {
      const [p50 = null, p99 = null] = percentilesMs(cell.lat, [50, 99]);
      Object.assign(into.get(target)![k]!, { p50, p99 });
    }
}

/** Whole days [fromMs, toMs) from the day level's aggregate rows, one scan in time order. */
async function wholeDays(
  ctx: ReadContext,
  series: readonly SeriesInfo[],
  latency: ReadonlySet<string>,
  t0: number,
  fromMs: number,
  toMs: number,
  into: Table,
  n: number,
  pace: Pace,
): Promise<void> {
  if (series.length === 0 || fromMs >= toMs) return;
  const byId = new Map(series.map((s) => [s.id, s]));
  let day = -1;
  let dense = new Map<string, DenseRollup>();
  const close = () => {
    for (const [target, d] of dense) {
      const [p50 = null, p99 = null] = quantiles(d.toRollup(), [50, 99]).map(msOf);
      Object.assign(bucketsOf(into, target, n)[day]!, { p50, p99 });
    }
    dense = new Map();
  };
  await ctx.pool.scan(
    `SELECT series, start_ms, failures, lat FROM rollups WHERE level = ? AND client = ${ANY_CLIENT} AND class = ${ANY_CLASS}
     AND start_ms >= ? AND start_ms < ? AND series IN (${series.map((s) => s.id).join(", ")}) ORDER BY start_ms`,
    [DAY_LEVEL, fromMs, toMs],
    (row) => {
      const [id, startMs, failures, lat] = row as [number, number, number, Uint8Array | null];
      const s = byId.get(id);
      if (s === undefined) return;
      const k = Math.floor((startMs - t0) / DAY_MS);
      if (k !== day) {
        if (day >= 0) close();
        day = k;
      }
      const b = bucketsOf(into, s.target, n)[k]!;
      b.failures += Number(failures);
      if (lat === null) return;
      if (!latency.has(s.method)) {
        b.ok += encodedCount(lat);
        return;
      }
      let d = dense.get(s.target);
      if (d === undefined) dense.set(s.target, (d = new DenseRollup()));
      const before = d.count;
      d.addEncoded(lat);
      b.ok += d.count - before;
    },
    pace,
  );
  if (day >= 0) close();
}

export async function targetHealth(
  ctx: ReadContext,
  filter: SampleFilter,
  q: TargetHealthQuery,
  pace: Pace,
): Promise<TargetBuckets[]> {
  const latency = new Set(q.latencyMethods);
  const table: Table = new Map();
  const axis = q.axis;
  if (axis === null) {
    await mergedBuckets(ctx, filter, null, latency, table, 1, 0, pace);
  } else if (axis.bucketMs !== DAY_MS || axis.t0 % DAY_MS !== 0) {
    await mergedBuckets(ctx, filter, axis, latency, table, axis.buckets, 0, pace);
  } else {
    // Days wholly inside the range from the day rows; the partial ones at either end through the general reader.
    const end = axis.t0 + axis.buckets * DAY_MS;
    const firstWhole = Math.max(axis.t0, Math.ceil(filter.fromMs / DAY_MS) * DAY_MS);
    const endWhole = Math.min(end, Math.floor((filter.toMs + 1) / DAY_MS) * DAY_MS);
    const wanted = seriesWanted(filter);
    const series = (await ctx.pool.all<SeriesInfo>("SELECT id, method, target FROM series", [])).filter(
      (s) =>
        wanted(s.method) &&
        (filter.targets === undefined || filter.targets.length === 0 || filter.targets.includes(s.target)),
    );
    await wholeDays(ctx, series, latency, axis.t0, firstWhole, endWhole, table, axis.buckets, pace);
    for (const [from, to] of [
      [Math.max(filter.fromMs, axis.t0), Math.min(firstWhole, filter.toMs + 1)],
      [Math.max(endWhole, filter.fromMs), Math.min(end, filter.toMs + 1)],
    ] as const) {
      if (from >= to) continue;
      const k = Math.floor((from - axis.t0) / DAY_MS);
      const part: Axis = { t0: k * DAY_MS + axis.t0, bucketMs: DAY_MS, buckets: 1 };
      await mergedBuckets(ctx, { ...filter, fromMs: from, toMs: to - 1 }, part, latency, table, axis.buckets, k, pace);
    }
  }
  return [...table].sort(([a], [b]) => a.localeCompare(b)).map(([target, buckets]) => ({ target, buckets }));
}
