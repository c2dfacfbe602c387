// Endpoint answers → the columnar arrays uPlot draws. Pure functions (no DOM,
// no uPlot) so they are unit-tested in Node.
import type {
  CdfResponse,
  HeatmapResponse,
  HistogramResponse,
  TimeseriesResponse,
} from "../../../shared/contract/index.js";
import { spreadQuantised } from "../../../shared/quantisation.js";
import { samplesNeededFor } from "../../../shared/stats.js";
import type { HistogramScale } from "./url-state.js";

/** uPlot's aligned data: x first, then one y array per series (null = gap). */
export type Columns = [number[], ...(number | null)[][]];

/**
 * Histogram as stepped lines on a log axis: x holds every bin edge, y[i] is
 * bin i's height drawn from edge i to edge i+1, and the extra last point
 * closes the final step at 0.
 */
export function histogramColumns(
  h: HistogramResponse,
  scale: HistogramScale,
  /** Clock step (ms) per series (method, target): values on a grid coarser than bins are spread over it (shared/quantisation.ts). */
  stepMsOf: (method: string, target: string) => number | null = () => null,
): Columns {
  const nBins = Math.max(0, h.edges.length - 1);
  const ys = h.series.map((s) => {
    const denom = scale === "share" ? s.count : 1;
    const step = stepMsOf(s.method, s.target);
    const counts = step === null ? s.counts : spreadQuantised(h.edges, s.counts, step);
    const out: (number | null)[] = new Array<number | null>(nBins + 1).fill(0);
    for (let i = 0; i < nBins; i++) out[i] = denom > 0 ? (counts[i] ?? 0) / denom : 0;
    return out;
  });
  return [h.edges.slice(0, nBins + 1), ...ys];
}

/**
 * One series' CDF as the tail view: y = 1 − F (share of samples slower than
 * x). At the maximum 1 − F is 0, which a log axis cannot show, so it is
 * drawn at half a sample (0.5 / count): the curve still reaches the max.
 */
export function tailPoints(points: [number, number][], count: number): [number[], number[]] {
  const floor = count > 0 ? 0.5 / count : 1e-6;
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [ms, f] of points) {
    xs.push(ms);
    ys.push(Math.max(1 - f, floor));
  }
  return [xs, ys];
}

/**
 * Outer join of several (x, y) series on x, the shape uPlot needs when the
 * series were sampled at different x. Missing values are null; the caller
 * draws with spanGaps so each curve stays continuous.
 */
export function alignSeries(series: [number[], number[]][]): Columns {
  const xs = [...new Set(series.flatMap(([x]) => x))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = series.map(([x, y]) => {
    const out: (number | null)[] = new Array<number | null>(xs.length).fill(null);
    for (let i = 0; i < x.length; i++) out[index.get(x[i]!)!] = y[i]!;
    return out;
  });
  return [xs, ...ys];
}

export function cdfColumns(c: CdfResponse): Columns {
  return alignSeries(c.series.map((s) => tailPoints(s.points, s.count)));
}

/** The 1 − F height of percentile p (e.g. 99.9 → 0.001). */
export function tailOfPercentile(p: number): number {
  return Number((1 - p / 100).toPrecision(12));
}

/**
 * A percentile is "thin" when fewer than 10 samples lie beyond it: p99.9
 * needs 10 000 samples. Below that it is close to the maximum and says little.
 */
export function isThin(p: number, count: number): boolean {
  return count < samplesNeededFor(p);
}

/** Columns of one latency-over-time panel: t, p50, p90, p99, max, failures. */
export function timeseriesColumns(ts: TimeseriesResponse, index: number): Columns {
  const s = ts.series[index];
  if (s === undefined) return [[]];
  // Buckets are drawn at their middle so a bar and a point share an x.
  const xs = ts.t.map((t) => t + ts.bucketMs / 2);
  return [xs, s.p50, s.p90, s.p99, s.max, s.failures.map((f) => (f > 0 ? f : null))];
}

/**
 * Where the time charts start: the range's start, or the first bucket that
 * holds a sample or a failure when the range begins with none. A page opened
 * a minute after `npm start` on "the last hour" otherwise draws an hour of
 * nothing with its minute as a sliver at the right edge; a gap after the
 * first sample still shows.
 */
export function timelineStart(ts: TimeseriesResponse): number {
  for (let i = 0; i < ts.t.length; i++) {
    if (ts.series.some((s) => (s.count[i] ?? 0) > 0 || (s.failures[i] ?? 0) > 0)) return Math.max(ts.from, ts.t[i]!);
  }
  return ts.from;
}

export interface HeatCell {
  t0: number;
  t1: number;
  ms0: number;
  ms1: number;
  count: number;
}

/** Non-empty cells of one heatmap series, with the largest count for the colour scale. */
export function heatmapCells(h: HeatmapResponse, index: number): { cells: HeatCell[]; maxCount: number } {
  const s = h.series[index];
  const cells: HeatCell[] = [];
  let maxCount = 0;
  if (s === undefined) return { cells, maxCount };
  for (let i = 0; i < h.t.length; i++) {
    const row = s.counts[i];
    if (row === undefined) continue;
    for (let j = 0; j < row.length; j++) {
      const count = row[j]!;
      if (count <= 0) continue;
      cells.push({
        t0: h.t[i]!,
        t1: h.t[i]! + h.bucketMs,
        ms0: h.edges[j]!,
        ms1: h.edges[j + 1] ?? h.edges[j]! * 1.12,
        count,
      });
      if (count > maxCount) maxCount = count;
    }
  }
  return { cells, maxCount };
}

/** Latency range (ms) a set of heat cells spans, widened to whole decades so ticks land on 1, 10, 100 ms. */
export function heatmapLatencyRange(cells: HeatCell[]): [number, number] {
  if (cells.length === 0) return [1, 1000];
  let lo = Infinity;
  let hi = 0;
  for (const c of cells) {
    lo = Math.min(lo, c.ms0);
    hi = Math.max(hi, c.ms1);
  }
  // 1e-9 keeps an exact decade edge (10.000000001 from float bins) on its own decade.
  return [10 ** Math.floor(Math.log10(lo) + 1e-9), 10 ** Math.ceil(Math.log10(hi) - 1e-9)];
}

/**
 * Bucket widths the page asks for: about 120 columns for latency over time
 * (a few samples per bucket even over minutes, so p90 is not just the max)
 * and 60 for the heatmap (enough samples per column for a distribution).
 */
export const TIMESERIES_BUCKETS_TARGET = 120;
export const HEATMAP_BUCKETS_TARGET = 60;
/** Heatmap latency resolution: 10 bins per decade (each ~26% wide). */
export const HEATMAP_BINS_PER_DECADE = 10;
