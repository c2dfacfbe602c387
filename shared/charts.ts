// The chart endpoints' contract: the filters every query endpoint accepts and
// the JSON shapes of /api/histogram, /api/cdf, /api/timeseries, /api/heatmap
// and /api/clients. Server and histogram page both build against this file.
import { z } from "./zod.js";
import { METHODS } from "./methods.js";
import { CLIENT_TOKEN_PATTERN, TARGET_PATTERN } from "./names.js";

/** Query-string integer: "123" → 123; anything else is an error. */
export const queryInt = z.pipe(z.string().check(z.regex(/^-?\d{1,16}$/, "must be an integer")), z.transform(Number));

/** Query-string integer within bounds. */
const queryIntIn = (min: number, max: number) => z.pipe(queryInt, z.int().check(z.minimum(min), z.maximum(max)));

/** "0" or "1" → boolean. */
const queryFlag = z.pipe(
  z.enum(["0", "1"]),
  z.transform((v) => v === "1"),
);

/** Comma-separated list in a query string, each item checked. */
function queryList<T extends string>(item: z.core.$ZodType<T, string>, maxItems: number) {
  return z.pipe(
    z.pipe(
      z.string().check(z.maxLength(2000)),
      z.transform((s) => s.split(",").filter((x) => x !== "")),
    ),
    z.array(item).check(z.maxLength(maxItems)),
  );
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
const excludeWindows = z.pipe(
  z.string().check(z.maxLength(2000)),
  z.transform((s: string, ctx) => {
    const out: { fromMs: number; toMs: number }[] = [];
    for (const part of s.split(",")) {
      if (part === "") continue;
      const m = /^(\d{1,16})-(\d{1,16})$/.exec(part);
      if (!m || Number(m[1]) > Number(m[2])) {
        ctx.issues.push({ code: "custom", input: s, message: `exclude window "${part.slice(0, 40)}" is not FROM-TO in epoch ms` });
        return z.NEVER;
      }
      out.push({ fromMs: Number(m[1]), toMs: Number(m[2]) });
    }
    if (out.length > 20) {
      ctx.issues.push({ code: "custom", input: s, message: "at most 20 exclude windows" });
      return z.NEVER;
    }
    return out;
  }),
);

/**
 * Filters shared by /api/stats and every chart endpoint. All optional:
 * - from, to: epoch ms (default: everything up to now)
 * - client: one client's public id (see ClientInfo)
 * - method, target: comma lists (default: all); method may name tcpminrtt (see DERIVED_SERIES)
 * - visible=1: only samples sent and answered while the tab was visible
 * - maxLateMs=N: only samples whose tick fired at most N ms late
 * - exclude=FROM-TO,...: leave these windows out (the focus window's "invert")
 * - timeouts=1: timeouts enter the latency figures at their timeout value
 *   (they are still counted as failures); default: latency figures are over ok samples only
 * - reportInFlight=1: only probes sent while a report to their server was in
 *   flight; reportInFlight=0: leave those out (samples that record nothing, e.g.
 *   baselines, stay)
 */
export const sampleFilterQueryShape = {
  from: z.optional(queryInt),
  to: z.optional(queryInt),
  client: z.optional(z.string().check(z.regex(CLIENT_TOKEN_PATTERN))),
  method: z.optional(queryList(z.enum(SERIES_METHODS), 16)),
  target: z.optional(queryList(z.string().check(z.regex(TARGET_PATTERN)), 16)),
  visible: z.optional(queryFlag),
  maxLateMs: z.optional(z.pipe(queryInt, z.number().check(z.minimum(0)))),
  exclude: z.optional(excludeWindows),
  timeouts: z.optional(queryFlag),
  reportInFlight: z.optional(queryFlag),
};

/**
 * The tick-lateness limits (maxLateMs) the histogram page offers. The store
 * keeps a rollup class per limit, so these answer from rollups in
 * milliseconds; any other value is answered from raw samples (slower).
 */
export const MAX_LATE_MS_CHOICES = [10, 50, 100, 500, 1000, 5000] as const;

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

// ---- Answers ---------------------------------------------------------------
// Each answer is a schema the pages parse with; its type is inferred from it.

const ms = z.number();
const count = z.int().check(z.minimum(0));
const nullableMs = z.nullable(ms);
const positiveInt = z.int().check(z.minimum(1));

/** One (method, target) pair: the unit every chart draws. */
export const seriesKeyShape = { method: z.string().check(z.maxLength(32)), target: z.string().check(z.maxLength(80)) };
export type SeriesKey = { method: string; target: string };

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

/** GET /api/clients takes no parameters. */
export const clientsQuerySchema = z.strictObject({});

/**
 * Limits a query must respect, else 400 {"code": "QUERY_TOO_LARGE"}: time
 * buckets per timeseries/heatmap request, and heatmap cells per series
 * (time buckets × latency bins). A client picks bucketMs to stay below them.
 */
export const MAX_TIME_BUCKETS = 2000;
export const MAX_HEATMAP_CELLS = 200_000;

/**
 * GET /api/clients: who has reported, for the series picker. A client is
 * named by its public id (a keyed hash of its clientId, which stays the
 * browser's secret), its label and its browser family; never its address,
 * clientId or full user agent.
 */
export const clientInfoSchema = z.object({
  /** Public id: what ?client= takes. */
  id: z.string(),
  /** The label its page was given, as sent (render it as text). */
  label: z.nullable(z.string()),
  /** Browser family without version, e.g. "Firefox". */
  browser: z.nullable(z.string()),
  firstSeen: ms,
  lastSeen: ms,
  sessions: count,
});
export type ClientInfo = z.infer<typeof clientInfoSchema>;
export const clientsResponseSchema = z.object({ clients: z.array(clientInfoSchema) });
export type ClientsResponse = z.infer<typeof clientsResponseSchema>;

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
