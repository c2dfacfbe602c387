// GET /api/timeseries, from rollups (per aligned bucket, count, failures and
// max exact, p50/p90/p99 within ±1 %) or on the exact path from every sample.
import type { TimeseriesResponse } from "../../shared/contract/index.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { msOf, percentilesMs, sortedSeries, tailOf } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";
import { bucketStarts, rawTimeAxis, rollupTimeAxis } from "./time-axis.js";
import { percentileSorted } from "../../shared/stats.js";
import { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { isFailure, scanSamples, SeriesMap } from "./raw-scan.js";

const TIMESERIES_PERCENTILES = [50, 90, 99] as const;

export async function rollupTimeseries(
  ctx: ReadContext,
  filter: SampleFilter,
  bucketMs: number | undefined,
  pace: Pace,
): Promise<TimeseriesResponse> {
  const axis = await rollupTimeAxis(ctx, filter, bucketMs);
  const n = axis.buckets;
  const merged = n === 0 ? new Map() : await readMerged(ctx, { ...filter, fromMs: axis.fromMs }, axis, pace);
  const series: TimeseriesResponse["series"] = sortedSeries(merged).map(({ series: s, buckets }) => {
    const row: TimeseriesResponse["series"][number] = {
      method: s.method,
      target: s.target,
      count: new Array<number>(n).fill(0),
      failures: new Array<number>(n).fill(0),
      p50: new Array<number | null>(n).fill(null),
      p90: new Array<number | null>(n).fill(null),
      p99: new Array<number | null>(n).fill(null),
      max: new Array<number | null>(n).fill(null),
    };
    for (const [i, c] of buckets) {
      const r = tailOf(c, filter.timeoutsInTail === true);
      row.failures[i] = c.failures;
      row.count[i] = r.count;
      if (r.count === 0) continue;
      const [p50 = null, p90 = null, p99 = null] = percentilesMs(r, TIMESERIES_PERCENTILES);
      row.p50[i] = p50;
      row.p90[i] = p90;
      row.p99[i] = p99;
      row.max[i] = msOf(r.max);
    }
    return row;
  });
  return { from: axis.fromMs, to: filter.toMs, bucketMs: axis.bucketMs, t: bucketStarts(axis), series };
}

/** The exact path: each bucket's ok latencies sorted. */
export async function rawTimeseries(
  pool: ReadPool,
  filter: SampleFilter,
  bucketMs: number | undefined,
  pace = new Pace(),
): Promise<TimeseriesResponse> {
  const axis = await rawTimeAxis(pool, filter, bucketMs);
  const n = axis.buckets;
  const series = new SeriesMap(() => ({
    values: new Array<number[] | undefined>(n),
    failures: new Array<number>(n).fill(0),
  }));
  if (n > 0) {
    await scanSamples(pool, { ...filter, fromMs: axis.fromMs }, pace, (t, method, target, outcome, ms, inTail) => {
      const i = Math.floor((t - axis.t0) / axis.bucketMs);
      if (i < 0 || i >= n) return;
      const s = series.get(method, target);
      if (inTail) (s.values[i] ??= []).push(ms!);
      if (isFailure(outcome)) s.failures[i]!++;
    });
  }
  const out: TimeseriesResponse["series"] = [];
  for (const { method, target, state } of series.sorted()) {
    const row: TimeseriesResponse["series"][number] = {
      method,
      target,
      count: new Array<number>(n).fill(0),
      failures: state.failures,
      p50: new Array<number | null>(n).fill(null),
      p90: new Array<number | null>(n).fill(null),
      p99: new Array<number | null>(n).fill(null),
      max: new Array<number | null>(n).fill(null),
    };
    for (let i = 0; i < n; i++) {
      const vs = state.values[i];
      if (vs === undefined) continue;
      const sorted = Float64Array.from(vs).sort();
      row.count[i] = sorted.length;
      row.p50[i] = percentileSorted(sorted, 50);
      row.p90[i] = percentileSorted(sorted, 90);
      row.p99[i] = percentileSorted(sorted, 99);
      row.max[i] = sorted[sorted.length - 1]!;
      await pace.maybeYield();
    }
    out.push(row);
  }
  return { from: axis.fromMs, to: filter.toMs, bucketMs: axis.bucketMs, t: bucketStarts(axis), series: out };
}
