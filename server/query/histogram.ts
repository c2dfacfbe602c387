// GET /api/histogram, from rollups (counts per log bin, each series' count and
// failures exact) or on the exact path from every sample (queries.ts chooses).
import { binEdge, logBin, type HistogramResponse } from "../../shared/contract/index.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { logBinCounts, mergedCell, sortedSeries, tailOf } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";
import { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { binEdges, isFailure, scanSamples, SeriesMap } from "./raw-scan.js";

export async function rollupHistogram(
  ctx: ReadContext,
  filter: SampleFilter,
  binsPerDecade: number,
  pace: Pace,
): Promise<HistogramResponse> {
  const merged = await readMerged(ctx, filter, null, pace);
  let lo = Infinity;
  let hi = -Infinity;
  const rows = sortedSeries(merged).map(({ series, buckets }) => {
    const c = mergedCell(buckets);
    const r = tailOf(c, filter.timeoutsInTail === true);
    const bins = new Map<number, number>();
    logBinCounts(r, binsPerDecade, (k, n) => {
      bins.set(k, (bins.get(k) ?? 0) + n);
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    });
    return { method: series.method, target: series.target, count: r.count, failures: c.failures, bins };
  });
  const edges: number[] = [];
  if (lo <= hi) for (let k = lo; k <= hi + 1; k++) edges.push(binEdge(k, binsPerDecade));
  return {
    from: filter.fromMs,
    to: filter.toMs,
    binsPerDecade,
    edges,
    series: rows.map(({ bins, ...row }) => {
      const counts = new Array<number>(Math.max(0, edges.length - 1)).fill(0);
      for (const [k, n] of bins) counts[k - lo] = n;
      return { ...row, counts };
    }),
  };
}

/** The exact path: each ok latency counted in its log bin. */
export async function rawHistogram(
  pool: ReadPool,
  filter: SampleFilter,
  binsPerDecade: number,
  pace = new Pace(),
): Promise<HistogramResponse> {
  const series = new SeriesMap(() => ({ bins: new Map<number, number>(), count: 0, failures: 0 }));
  let lo = Infinity;
  let hi = -Infinity;
  await scanSamples(pool, filter, pace, (_t, method, target, outcome, ms, inTail) => {
    const s = series.get(method, target);
    if (isFailure(outcome)) s.failures++;
    if (inTail) {
      const k = logBin(ms!, binsPerDecade);
      s.bins.set(k, (s.bins.get(k) ?? 0) + 1);
      s.count++;
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    }
  });
  const edges = binEdges(lo, hi, binsPerDecade);
  return {
    from: filter.fromMs,
    to: filter.toMs,
    binsPerDecade,
    edges,
    series: series.sorted().map(({ method, target, state }) => {
      const counts = new Array<number>(Math.max(0, edges.length - 1)).fill(0);
      for (const [k, c] of state.bins) counts[k - lo] = c;
      return { method, target, count: state.count, failures: state.failures, counts };
    }),
  };
}
