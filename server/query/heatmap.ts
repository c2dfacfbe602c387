// GET /api/heatmap from rollups: counts per time bucket × log bin (see cells.ts logBinCounts).
import { binEdge, MAX_HEATMAP_CELLS, type HeatmapResponse } from "../../shared/contract/index.js";
import { QueryTooLargeError } from "../store/chart-queries.js";
import type { Pace } from "../store/read-pool.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { logBinCounts, sortedSeries, tailOf } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";
import { bucketStarts, rollupTimeAxis } from "./time-axis.js";

export async function rollupHeatmap(
  ctx: ReadContext,
  filter: SampleFilter,
  bucketMs: number | undefined,
  binsPerDecade: number,
  pace: Pace,
): Promise<HeatmapResponse> {
  const axis = await rollupTimeAxis(ctx, filter, bucketMs);
  const n = axis.buckets;
  const merged = n === 0 ? new Map() : await readMerged(ctx, { ...filter, fromMs: axis.fromMs }, axis, pace);
  let lo = Infinity;
  let hi = -Infinity;
  const cells = sortedSeries(merged).map(({ series: s, buckets }) => {
    const list: [number, number, number][] = [];
    for (const [i, c] of buckets)
      logBinCounts(tailOf(c, filter.timeoutsInTail === true), binsPerDecade, (k, count) => {
        list.push([i, k, count]);
        if (k < lo) lo = k;
        if (k > hi) hi = k;
      });
    return { s, list };
  });
  const edges: number[] = [];
  if (lo <= hi) for (let k = lo; k <= hi + 1; k++) edges.push(binEdge(k, binsPerDecade));
  const bins = Math.max(0, edges.length - 1);
  if (n * bins > MAX_HEATMAP_CELLS)
    throw new QueryTooLargeError(
      `${n} time buckets × ${bins} latency bins = ${n * bins} cells per series; at most ${MAX_HEATMAP_CELLS}: choose a larger bucketMs, fewer binsPerDecade or a shorter range`,
    );
  const series: HeatmapResponse["series"] = cells.map(({ s, list }) => {
    const counts = Array.from({ length: n }, () => new Array<number>(bins).fill(0));
    for (const [i, k, c] of list) counts[i]![k - lo]! += c;
    return { method: s.method, target: s.target, counts };
  });
  return { from: axis.fromMs, to: filter.toMs, bucketMs: axis.bucketMs, binsPerDecade, t: bucketStarts(axis), edges, series };
}
