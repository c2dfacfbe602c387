// GET /api/heatmap: counts per time bucket × log bin, from rollups (see
// cells.ts logBinCounts) or on the exact path from every sample.
import { binEdge, logBin, MAX_HEATMAP_CELLS, type HeatmapResponse } from "../../shared/contract/index.js";
import { QueryTooLargeError } from "./too-large.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { logBinCounts, sortedSeries, tailOf } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";
import { bucketStarts, rawTimeAxis, rollupTimeAxis } from "./time-axis.js";
import { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { binEdges, scanSamples, SeriesMap } from "./raw-scan.js";

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
  return {
    from: axis.fromMs,
    to: filter.toMs,
    bucketMs: axis.bucketMs,
    binsPerDecade,
    t: bucketStarts(axis),
    edges,
    series,
  };
}

// The exact path: every ok latency counted in its (time bucket, log bin) cell.

/** Cell key = bucket * BIN_SPAN + bin + BIN_OFFSET; latency bins stay within ±BIN_OFFSET (1 µs .. 1 day at 100 bins per decade). */
const BIN_OFFSET = 2048;
const BIN_SPAN = 4096;

export async function rawHeatmap(
  pool: ReadPool,
  filter: SampleFilter,
  bucketMs: number | undefined,
  binsPerDecade: number,
  pace = new Pace(),
): Promise<HeatmapResponse> {
  const axis = await rawTimeAxis(pool, filter, bucketMs);
  const n = axis.buckets;
  const series = new SeriesMap(() => new Map<number, number>());
  let lo = Infinity;
  let hi = -Infinity;
  if (n > 0) {
    await scanSamples(pool, { ...filter, fromMs: axis.fromMs }, pace, (t, method, target, _outcome, ms, inTail) => {
      const i = Math.floor((t - axis.t0) / axis.bucketMs);
      if (i < 0 || i >= n) return;
      const cells = series.get(method, target);
      if (!inTail) return;
      const k = logBin(ms!, binsPerDecade);
      const key = i * BIN_SPAN + k + BIN_OFFSET;
      cells.set(key, (cells.get(key) ?? 0) + 1);
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    });
  }
  const edges = binEdges(lo, hi, binsPerDecade);
  const bins = Math.max(0, edges.length - 1);
  if (n * bins > MAX_HEATMAP_CELLS)
    throw new QueryTooLargeError(
      `${n} time buckets × ${bins} latency bins = ${n * bins} cells per series; at most ${MAX_HEATMAP_CELLS}: choose a larger bucketMs, fewer binsPerDecade or a shorter range`,
    );
  const out: HeatmapResponse["series"] = [];
  for (const { method, target, state } of series.sorted()) {
    const counts = Array.from({ length: n }, () => new Array<number>(bins).fill(0));
    for (const [key, c] of state) {
      const i = Math.floor(key / BIN_SPAN);
      counts[i]![key - i * BIN_SPAN - BIN_OFFSET - lo] = c;
    }
    out.push({ method, target, counts });
    await pace.maybeYield();
  }
  return {
    from: axis.fromMs,
    to: filter.toMs,
    bucketMs: axis.bucketMs,
    binsPerDecade,
    t: bucketStarts(axis),
    edges,
    series: out,
  };
}
