// The chart endpoints' contract: the filters every query endpoint accepts and
// the JSON shapes of /api/histogram, /api/cdf, /api/timeseries, /api/heatmap
// and /api/clients. Server and histogram page both build against this file.
import { z } from "zod";
import { METHODS } from "./methods.js";
import { CLIENT_TOKEN_PATTERN, TARGET_PATTERN } from "./names.js";

/** Query-string integer: "123" → 123; anything else is an error. */
const queryInt = z
  .string()
  .regex(/^-?\d{1,16}$/, "must be an integer")
  .transform(Number);

/** Comma-separated list in a query string, each item checked. */
function queryList(item: z.ZodType<string, string>, maxItems: number) {
  return z
    .string()
    .max(2000)
    .transform((s) => s.split(",").filter((x) => x !== ""))
    .pipe(z.array(item).max(maxItems));
}

/**
 * Series that are not stored methods but derived from one: `tcpminrtt` is the
 * kernel's min RTT that `tcprtt` samples carry. A method filter may name it
 * to get that series alone; naming `tcprtt` brings both.
 */
export const DERIVED_SERIES = { tcpminrtt: "tcprtt" } as const;
/** Series the kernel's min RTT is reported under, beside the smoothed `tcprtt`. */
export const TCP_MIN_RTT_SERIES = "tcpminrtt";
const SERIES_METHODS = [...METHODS, ...(Object.keys(DERIVED_SERIES) as (keyof typeof DERIVED_SERIES)[])] as const;

/** "FROM-TO" epoch-ms windows, comma-separated: the spikes a user chose to leave out. */
const excludeWindows = z
  .string()
  .max(2000)
  .transform((s, ctx) => {
    const out: { fromMs: number; toMs: number }[] = [];
    for (const part of s.split(",")) {
      if (part === "") continue;
      const m = /^(\d{1,16})-(\d{1,16})$/.exec(part);
      if (!m || Number(m[1]) > Number(m[2])) {
        ctx.addIssue({ code: "custom", message: `exclude window "${part.slice(0, 40)}" is not FROM-TO in epoch ms` });
        return z.NEVER;
      }
      out.push({ fromMs: Number(m[1]), toMs: Number(m[2]) });
    }
    if (out.length > 20) {
      ctx.addIssue({ code: "custom", message: "at most 20 exclude windows" });
      return z.NEVER;
    }
    return out;
  });

/**
 * Filters shared by /api/stats and every chart endpoint. All optional:
 * - from, to: epoch ms (default: everything up to now)
 * - client: one clientId
 * - method, target: comma lists (default: all); method may name tcpminrtt (see DERIVED_SERIES)
 * - visible=1: only samples sent and answered while the tab was visible
 * - maxLateMs=N: only samples whose tick fired at most N ms late
 * - exclude=FROM-TO,...: leave these windows out (the focus window's "invert")
 * - timeouts=1: timeouts enter the latency figures at their timeout value
 *   (they are still counted as failures); default: latency figures are over ok samples only
 */
export const sampleFilterQueryShape = {
  from: queryInt.optional(),
  to: queryInt.optional(),
  client: z.string().regex(CLIENT_TOKEN_PATTERN).optional(),
  method: queryList(z.enum(SERIES_METHODS), 16).optional(),
  target: queryList(z.string().regex(TARGET_PATTERN), 16).optional(),
  visible: z.enum(["0", "1"]).transform((v) => v === "1").optional(),
  maxLateMs: queryInt.pipe(z.number().min(0)).optional(),
  exclude: excludeWindows.optional(),
  timeouts: z.enum(["0", "1"]).transform((v) => v === "1").optional(),
};

/**
 * The tick-lateness limits (maxLateMs) the histogram page offers. The store
 * keeps a rollup class per limit, so these answer from rollups in
 * milliseconds; any other value is answered from raw samples (slower).
 */
export const MAX_LATE_MS_CHOICES = [10, 50, 100, 500, 1000, 5000] as const;

/** Log-spaced bins per decade when a query does not say. */
export const DEFAULT_BINS_PER_DECADE = 20;

export const histogramQuerySchema = z
  .object({
    ...sampleFilterQueryShape,
    /** Log-spaced bins per decade of latency (default 20). */
    binsPerDecade: queryInt.pipe(z.number().int().min(1).max(100)).optional(),
  })
  .strict();
export type HistogramQuery = z.infer<typeof histogramQuerySchema>;

export const cdfQuerySchema = z.object({ ...sampleFilterQueryShape }).strict();
export type CdfQuery = z.infer<typeof cdfQuerySchema>;

export const timeseriesQuerySchema = z
  .object({
    ...sampleFilterQueryShape,
    /** Bucket width; default chosen from the range (see chooseBucketMs). */
    bucketMs: queryInt.pipe(z.number().int().min(1000).max(86_400_000)).optional(),
  })
  .strict();
export type TimeseriesQuery = z.infer<typeof timeseriesQuerySchema>;

export const heatmapQuerySchema = z
  .object({
    ...sampleFilterQueryShape,
    bucketMs: queryInt.pipe(z.number().int().min(1000).max(86_400_000)).optional(),
    binsPerDecade: queryInt.pipe(z.number().int().min(1).max(100)).optional(),
  })
  .strict();
export type HeatmapQuery = z.infer<typeof heatmapQuerySchema>;

/** One (method, target) pair: the unit every chart draws. */
export interface SeriesKey {
  method: string;
  target: string;
}

/**
 * GET /api/histogram. `edges` are shared by all series: bin i holds
 * latencies in [edges[i], edges[i+1]); the last edge is exclusive too, and
 * edges cover every ok sample in the result
 * (latencies under 1 µs, e.g. a loopback ping rounded to 0 ms, count in the
 * bin that starts at 1 µs; see logBin).
 */
export interface HistogramResponse {
  from: number;
  to: number;
  binsPerDecade: number;
  edges: number[];
  series: (SeriesKey & { count: number; failures: number; counts: number[] })[];
}

/**
 * GET /api/cdf. Per series, points [ms, F] with F = share of ok samples ≤ ms,
 * exact at every point (computed from the sorted values), dense in the tail:
 * every distinct value among the slowest 1000 plus ~200 log-spaced quantiles
 * below them, so 1 − F on a log axis spreads p99, p99.9 and p99.99 apart.
 */
export interface CdfResponse {
  from: number;
  to: number;
  series: (SeriesKey & {
    count: number;
    points: [number, number][];
    /**
     * Nearest-rank percentiles of this series (CDF_MARKER_PERCENTILES, the
     * table's plus p99.99) to mark on the curve; absent when count is 0.
     */
    markers?: CdfMarker[];
  })[];
}

/** One percentile marked on a CDF: `ms` is the nearest-rank pN of the series. */
export interface CdfMarker {
  p: number;
  ms: number;
}
export const CDF_MARKER_PERCENTILES = [10, 50, 90, 99, 99.9, 99.99] as const;

/**
 * GET /api/timeseries. `t[i]` is the start of bucket i (epoch ms, aligned to
 * bucketMs); every series has one entry per bucket; null where a bucket has
 * no ok sample. Percentiles are nearest rank within the bucket.
 */
export interface TimeseriesResponse {
  from: number;
  to: number;
  bucketMs: number;
  t: number[];
  series: (SeriesKey & {
    count: number[];
    failures: number[];
    p50: (number | null)[];
    p90: (number | null)[];
    p99: (number | null)[];
    max: (number | null)[];
  })[];
}

/** GET /api/heatmap: counts[i][j] = ok samples in time bucket t[i] and latency bin [edges[j], edges[j+1]). */
export interface HeatmapResponse {
  from: number;
  to: number;
  bucketMs: number;
  binsPerDecade: number;
  t: number[];
  edges: number[];
  series: (SeriesKey & { counts: number[][] })[];
}

/** GET /api/clients takes no parameters. */
export const clientsQuerySchema = z.object({}).strict();

/**
 * Limits a query must respect, else 400 {"code": "QUERY_TOO_LARGE"}: time
 * buckets per timeseries/heatmap request, and heatmap cells per series
 * (time buckets × latency bins). A client picks bucketMs to stay below them.
 */
export const MAX_TIME_BUCKETS = 2000;
export const MAX_HEATMAP_CELLS = 200_000;

/** GET /api/clients: who has reported, for the series picker. */
export interface ClientInfo {
  clientId: string;
  label: string | null;
  userAgent: string | null;
  browser: string | null;
  os: string | null;
  firstSeen: number;
  lastSeen: number;
  sessions: number;
}
export interface ClientsResponse {
  clients: ClientInfo[];
}

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
