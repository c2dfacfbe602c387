// GET /api/cdf from rollups. Each point is [upper edge of a rollup bucket
// (the last one clamped to the maximum), share of samples ≤ it]: F is exact
// at every point, the points are no more than 0.54 % apart in latency, and
// the markers are percentiles within ±1 %.
import { CDF_MARKER_PERCENTILES, type CdfResponse } from "../../shared/contract/index.js";
import { bucketUpper, sortedBuckets } from "../../shared/rollup.js";
import type { Pace } from "../store/read-pool.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { mergedCell, percentileMs, sortedSeries, tailOf, US_PER_MS } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";

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
