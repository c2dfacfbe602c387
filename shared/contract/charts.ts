// The chart endpoints: GET /api/histogram, /api/cdf, /api/timeseries and
// /api/heatmap take the sample filters (query-string.ts) plus their own
// parameters; their answers are the schemas below, from which the types the
// server's queries return are inferred. The binning that fixes `edges` and
// `bucketMs` is part of the contract too.
import { z } from "../zod.js";
import { count, ms, nullableMs, positiveInt, seriesKeyShape } from "./fields.js";
import { queryIntIn, sampleFilterQueryShape } from "./query-string.js";

/** Log-spaced bins per decade when a query does not say. */
export const DEFAULT_BINS_PER_DECADE = 20;

export const histogramQuerySchema = z.strictObject({
  ...sampleFilterQueryShape,
  /** Log-spaced bins per decade of latency (default 20). */
  binsPerDecade: z.optional(queryIntIn(1, 100)),
});
export type HistogramQuery = z.infer<typeof histogramQuerySchema>;

export const cdfQuerySchema = z.strictObject({ ...sampleFilterQueryShape });
export type CdfQuery = z.infer<typeof cdfQuerySchema>;

export const timeseriesQuerySchema = z.strictObject({
  ...sampleFilterQueryShape,
  /** Bucket width; default chosen from the range (see chooseBucketMs). */
  bucketMs: z.optional(queryIntIn(1000, 86_400_000)),
});
export type TimeseriesQuery = z.infer<typeof timeseriesQuerySchema>;

export const heatmapQuerySchema = z.strictObject({
  ...sampleFilterQueryShape,
  bucketMs: z.optional(queryIntIn(1000, 86_400_000)),
  binsPerDecade: z.optional(queryIntIn(1, 100)),
});
export type HeatmapQuery = z.infer<typeof heatmapQuerySchema>;

/**
 * GET /api/histogram. `edges` are shared by all series: bin i holds
 * latencies in [edges[i], edges[i+1]); the last edge is exclusive too, and
 * edges cover every ok sample in the result
 * (latencies under 1 µs, e.g. a loopback ping rounded to 0 ms, count in the
 * bin that starts at 1 µs; see logBin).
 */
export const histogramResponseSchema = z.object({
  from: ms,
  to: ms,
  binsPerDecade: positiveInt,
  edges: z.array(ms),
  series: z.array(z.object({ ...seriesKeyShape, count, failures: count, counts: z.array(count) })),
});
export type HistogramResponse = z.infer<typeof histogramResponseSchema>;

/** One percentile marked on a CDF: `ms` is the nearest-rank pN of the series. */
export const cdfMarkerSchema = z.object({ p: z.number().check(z.minimum(0), z.maximum(100)), ms });
export type CdfMarker = z.infer<typeof cdfMarkerSchema>;
export const CDF_MARKER_PERCENTILES = [10, 50, 90, 99, 99.9, 99.99] as const;

/**
 * GET /api/cdf. Per series, points [ms, F] with F = share of ok samples ≤ ms,
 * exact at every point (computed from the sorted values), dense in the tail:
 * every distinct value among the slowest 1000 plus ~200 log-spaced quantiles
 * below them, so 1 − F on a log axis spreads p99, p99.9 and p99.99 apart.
 * `markers`: nearest-rank percentiles of the series (CDF_MARKER_PERCENTILES,
 * the table's plus p99.99) to mark on the curve; absent when count is 0.
 */
export const cdfResponseSchema = z.object({
  from: ms,
  to: ms,
  series: z.array(
    z.object({
      ...seriesKeyShape,
      count,
      points: z.array(z.tuple([ms, z.number().check(z.minimum(0), z.maximum(1))])),
      markers: z.optional(z.array(cdfMarkerSchema)),
    }),
  ),
});
export type CdfResponse = z.infer<typeof cdfResponseSchema>;

/**
 * GET /api/timeseries. `t[i]` is the start of bucket i (epoch ms, aligned to
 * bucketMs); every series has one entry per bucket; null where a bucket has
 * no ok sample. Percentiles are nearest rank within the bucket.
 */
export const timeseriesResponseSchema = z.object({
  from: ms,
  to: ms,
  bucketMs: positiveInt,
  t: z.array(ms),
  series: z.array(
    z.object({
      ...seriesKeyShape,
      count: z.array(count),
      failures: z.array(count),
      p50: z.array(nullableMs),
      p90: z.array(nullableMs),
      p99: z.array(nullableMs),
      max: z.array(nullableMs),
    }),
  ),
});
export type TimeseriesResponse = z.infer<typeof timeseriesResponseSchema>;

/** GET /api/heatmap: counts[i][j] = ok samples in time bucket t[i] and latency bin [edges[j], edges[j+1]). */
export const heatmapResponseSchema = z.object({
  from: ms,
  to: ms,
  bucketMs: positiveInt,
  binsPerDecade: positiveInt,
  t: z.array(ms),
  edges: z.array(ms),
  series: z.array(z.object({ ...seriesKeyShape, counts: z.array(z.array(count)) })),
});
export type HeatmapResponse = z.infer<typeof heatmapResponseSchema>;

/**
 * Limits a query must respect, else 400 {"code": "QUERY_TOO_LARGE"}: time
 * buckets per timeseries/heatmap request, and heatmap cells per series
 * (time buckets × latency bins). A client picks bucketMs to stay below them.
 */
export const MAX_TIME_BUCKETS = 2000;
export const MAX_HEATMAP_CELLS = 200_000;

/** Nice bucket widths: the smallest giving at most `maxBuckets` buckets over the range. */
export const BUCKET_STEPS_MS = [
  1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
  7_200_000, 21_600_000, 43_200_000, 86_400_000,
] as const;

export function chooseBucketMs(rangeMs: number, maxBuckets = 300): number {
  for (const step of BUCKET_STEPS_MS) if (rangeMs / step <= maxBuckets) return step;
  return 86_400_000;
}

/**
 * Log-spaced bin index of a latency: bin k covers [10^(k/b), 10^((k+1)/b)) ms.
 * Integer k keeps bins identical across queries, which is what makes
 * per-minute histograms mergeable later.
 */
export function logBin(ms: number, binsPerDecade: number): number {
  // Sub-microsecond latencies (loopback ping rounds to 0.001 ms) share the lowest bin.
  const v = Math.max(ms, 0.001);
  const k = Math.floor(Math.log10(v) * binsPerDecade + 1e-9);
  // Guard float error at exact edges: the edge itself belongs to the upper bin.
  return binEdge(k + 1, binsPerDecade) <= v ? k + 1 : binEdge(k, binsPerDecade) > v ? k - 1 : k;
}

export function binEdge(k: number, binsPerDecade: number): number {
  return 10 ** (k / binsPerDecade);
}
