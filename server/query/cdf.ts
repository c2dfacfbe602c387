// GET /api/cdf, on the exact path from every sample (points at sample values,
// F exact), or from rollups (queries.ts chooses). From rollups each point is
// [upper edge of a rollup bucket (the last one clamped to the maximum), share
// of samples ≤ it]: F is exact at every point, the points are no more than
// 0.54 % apart in latency, and the markers are percentiles within ±1 %.
import { CDF_MARKER_PERCENTILES, type CdfResponse } from "../../shared/contract/index.js";
import { bucketUpper, sortedBuckets } from "../../shared/rollup.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { mergedCell, percentileMs, sortedSeries, tailOf, US_PER_MS } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";
import { percentileSorted, shareAtOrBelow } from "../../shared/stats.js";
import { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { scanSamples, SeriesMap } from "./raw-scan.js";
import { slicedSort } from "./sliced-sort.js";

export async function rollupCdf(ctx: ReadContext, filter: SampleFilter, pace: Pace): Promise<CdfResponse> {
  const merged = await readMerged(ctx, filter, null, pace);
  const series: CdfResponse["series"] = sortedSeries(merged).map(({ series: s, buckets }) => {
    const r = tailOf(mergedCell(buckets), filter.timeoutsInTail === true);
    const n = r.count;
    const points: [number, number][] = [];
    if (n === 0) return { method: s.method, target: s.target, count: 0, points };
    let seen = r.zero;
    if (r.zero > 0) points.push([0, seen / n]);
    const sorted = sortedBuckets(r);
    for (const [i, c] of sorted) {
      seen += c;
      points.push([Math.min(r.max!, bucketUpper(i)) / US_PER_MS, seen / n]);
    }
    const markers = CDF_MARKER_PERCENTILES.map((p) => ({ p, ms: percentileMs(r, p) ?? Number.NaN }));
    return { method: s.method, target: s.target, count: n, points, markers };
  });
  return { from: filter.fromMs, to: filter.toMs, series };
}

// The exact path: points at sample values, F exact.

/** Every distinct value among this many slowest samples is a CDF point. */
export const CDF_TAIL_POINTS = 1000;
/** Quantile points below the tail: half evenly spaced in F, half log-spaced in 1 − F. */
export const CDF_BULK_POINTS = 200;

export async function rawCdf(pool: ReadPool, filter: SampleFilter, pace = new Pace()): Promise<CdfResponse> {
  const series = new SeriesMap(() => ({ values: [] as number[] }));
  await scanSamples(pool, filter, pace, (_t, method, target, _outcome, ms, inTail) => {
    const s = series.get(method, target);
    if (inTail) s.values.push(ms!);
  });
  const out: CdfResponse["series"] = [];
  for (const { method, target, state } of series.sorted()) {
    const sorted = await slicedSort(state.values, pace);
    state.values = [];
    const entry: CdfResponse["series"][number] = { method, target, count: sorted.length, points: cdfPoints(sorted) };
    if (sorted.length > 0)
      entry.markers = CDF_MARKER_PERCENTILES.map((p) => ({ p, ms: percentileSorted(sorted, p) ?? Number.NaN }));
    out.push(entry);
    await pace.maybeYield();
  }
  return { from: filter.fromMs, to: filter.toMs, series: out };
}

/** Points [ms, F] with F = share of values ≤ ms, exact; ascending in ms, one per distinct value. */
export function cdfPoints(sorted: Float64Array): [number, number][] {
  const n = sorted.length;
  const points: [number, number][] = [];
  if (n === 0) return points;
  const tailStart = Math.max(0, n - CDF_TAIL_POINTS); // 0-based index of the first tail value
  const ranks = new Set<number>();
  if (tailStart > 0) {
    ranks.add(1);
    const half = CDF_BULK_POINTS / 2;
    for (let i = 1; i <= half; i++) ranks.add(Math.ceil((i / half) * tailStart));
    // 1 − F from 1 down to the tail's share, log-spaced.
    const decades = Math.log10(n / (n - tailStart));
    for (let j = 0; j <= half; j++)
      ranks.add(Math.max(1, Math.min(tailStart, n - Math.floor(n * 10 ** (-(j / half) * decades)))));
  }
  let last = Number.NEGATIVE_INFINITY;
  for (const r of [...ranks].sort((a, b) => a - b)) {
    const v = sorted[r - 1]!;
    if (v === last) continue;
    points.push([v, shareAtOrBelow(sorted, v)]);
    last = v;
  }
  for (let i = tailStart; i < n; i++) {
    const v = sorted[i]!;
    if (v === last || (i + 1 < n && sorted[i + 1] === v)) continue; // emit each value at its last occurrence
    points.push([v, (i + 1) / n]);
    last = v;
  }
  return points;
}
