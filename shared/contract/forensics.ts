// The forensics endpoints, both directions: query strings parsed from
// `unknown` on the server, and the JSON answers the histogram page parses
// back, with every answer type inferred from its schema (the server's routes
// return these types, so the math in shared/forensics/ must fit them).
//   GET /api/attribution  why one sample (a tail point, a heatmap cell, a time bucket) was slow
//   GET /api/compare      two series, or two time ranges of one, compared
//   GET /api/periodicity  repeating patterns and aligned tails in bucketed p90/p99
//   GET /api/fanout       fan-out and hedging from two servers' measured pairs
import { PROBE_METHODS } from "../methods.js";
import { TARGET_PATTERN } from "../names.js";
import { z } from "../zod.js";
import { token } from "./fields.js";
import { queryInt, sampleFilterQueryShape } from "./query-string.js";

/** Query-string latency (ms): a decimal number ≥ 0. */
const queryMs = z.pipe(
  z.string().check(z.regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a latency in ms")),
  z.transform(Number),
);
/** "method@target", the page's series id. */
const seriesSpec = z
  .string()
  .check(z.regex(/^[a-z0-9]{2,16}@[A-Za-z0-9][A-Za-z0-9_.+-]{0,64}$/, "must be METHOD@TARGET"));

export const FANOUT_N_MAX = 1000;
export const FANOUT_N_DEFAULT = 10;
export const HEDGE_MS_MAX = 60_000;
export const PERIOD_BUCKET_MS_MIN = 1000;

export const attributionQuerySchema = z
  .strictObject({
    ...sampleFilterQueryShape,
    /** Pick the sample of the series whose latency is nearest this (a point on the tail chart). */
    ms: z.optional(queryMs),
    /** Or: the slowest sample with latency in [msMin, msMax) (a heatmap cell); default the slowest of all. */
    msMin: z.optional(queryMs),
    msMax: z.optional(queryMs),
  })
  .check(
    z.refine((q) => q.method?.length === 1 && q.target?.length === 1, "name exactly one method and one target"),
    // [msMin, msMax) holds nothing otherwise: a 200 with no sample would say the cell was empty.
    z.refine(
      (q) => q.msMin === undefined || q.msMax === undefined || q.msMin < q.msMax,
      "msMin must be below msMax: the cell is [msMin, msMax)",
    ),
  );
export type AttributionQuery = z.infer<typeof attributionQuerySchema>;

export const compareQuerySchema = z.strictObject({
  ...sampleFilterQueryShape,
  a: seriesSpec,
  b: seriesSpec,
  /** Optional per-side time ranges and clients (epoch ms); default the shared from/to/client. */
  aFrom: z.optional(queryInt),
  aTo: z.optional(queryInt),
  bFrom: z.optional(queryInt),
  bTo: z.optional(queryInt),
  aClient: z.optional(token),
  bClient: z.optional(token),
});
export type CompareQuery = z.infer<typeof compareQuerySchema>;

export const COMPARE_SAMPLES_MAX = 200_000;

export const periodicityQuerySchema = z.strictObject({
  ...sampleFilterQueryShape,
  bucketMs: z.optional(z.pipe(queryInt, z.int().check(z.minimum(PERIOD_BUCKET_MS_MIN), z.maximum(86_400_000)))),
});
export type PeriodicityQuery = z.infer<typeof periodicityQuerySchema>;

export const fanoutQuerySchema = z
  .strictObject({
    ...sampleFilterQueryShape,
    /** Requests per page view (default 10). */
    n: z.optional(z.pipe(queryInt, z.int().check(z.minimum(1), z.maximum(FANOUT_N_MAX)))),
    /** Ask the second server after this long without an answer (ms); default the first server's p95. */
    hedgeMs: z.optional(z.pipe(queryMs, z.number().check(z.maximum(HEDGE_MS_MAX)))),
  })
  .check(
    z.refine(
      (q) =>
        q.method?.length === 1 && (PROBE_METHODS as readonly string[]).includes(q.method[0]!) && q.target?.length === 2,
      "name one probe method and two targets: target=PRIMARY,SECONDARY",
    ),
  );
export type FanoutQuery = z.infer<typeof fanoutQuerySchema>;

/** TARGET_PATTERN re-checked on the halves of a series spec. */
export function parseSeriesSpec(spec: string): { method: string; target: string } | null {
  const at = spec.indexOf("@");
  const method = spec.slice(0, at);
  const target = spec.slice(at + 1);
  return at > 0 && TARGET_PATTERN.test(target) ? { method, target } : null;
}

// ---- Answers ------------------------------------------------------------------

const num = z.number();
const nullableNum = z.nullable(num);
const bool = z.boolean();
const nullableBool = z.nullable(bool);
const str = z.string().check(z.maxLength(400));

const forensicSample = {
  method: str,
  target: str,
  t: num,
  ms: nullableNum,
  outcome: str,
  lateMs: nullableNum,
  visibleAtSend: nullableBool,
  visibleAtReply: nullableBool,
  hiddenMs: nullableNum,
  froze: nullableBool,
  fresh: nullableBool,
  serverMs: nullableNum,
  serverLagMs: nullableNum,
};

/** GET /api/attribution. `sample.client` is the client's public id (as in /api/clients), never its clientId. */
export const attributionResponseSchema = z.object({
  sample: z.nullable(z.object({ ...forensicSample, client: str })),
  breakdown: z.nullable(
    z.object({
      lateMs: nullableNum,
      totalMs: nullableNum,
      serverMs: nullableNum,
      pathMs: nullableNum,
      pathMethod: z.nullable(str),
      restMs: nullableNum,
    }),
  ),
  verdict: z.nullable(
    z.object({
      cause: z.enum(["client", "server", "network", "http", "unexplained", "normal"]),
      target: z.nullable(str),
      text: str,
      evidence: z.array(str),
    }),
  ),
  /** The same client's samples in the same second, every method and server. */
  neighbours: z.array(z.object(forensicSample)),
  /** Typical (median) latency per "method target" around the sample (ms). */
  typicalMs: z.record(z.string(), num),
});
export type AttributionResponse = z.infer<typeof attributionResponseSchema>;

const interval = z.object({ estimate: num, lo: num, hi: num });
const side = z.object({ label: str, from: num, to: num, count: num });

/**
 * GET /api/compare. `comparison` is null when a side has no ok sample;
 * `capped`: each side was cut to its newest COMPARE_SAMPLES_MAX.
 */
export const compareResponseSchema = z.object({
  a: side,
  b: side,
  comparison: z.nullable(
    z.object({
      countA: num,
      countB: num,
      medianDiff: interval,
      p99Diff: interval,
      rank: z.object({ u: num, p: num, method: z.enum(["exact", "asymptotic"]), z: nullableNum }),
      confidence: num,
      sentence: z.string().check(z.maxLength(2000)),
    }),
  ),
  capped: bool,
});
export type CompareResponse = z.infer<typeof compareResponseSchema>;

const periodicity = z.object({
  periodMs: nullableNum,
  strength: num,
  autocorrelation: nullableNum,
  p: num,
  buckets: num,
  firstPeakMs: nullableNum,
});

/**
 * GET /api/periodicity. Peaks fall at t0 + firstPeakMs + k·periodMs; `pairs`:
 * every two series' bucketed p90 correlated, aligned ones first.
 */
export const periodicityResponseSchema = z.object({
  from: num,
  to: num,
  bucketMs: num,
  t0: num,
  series: z.array(z.object({ method: str, target: str, p90: periodicity, p99: periodicity })),
  pairs: z.array(z.object({ a: str, b: str, r: num, n: num, p: num, aligned: bool })),
});
export type PeriodicityResponse = z.infer<typeof periodicityResponseSchema>;

const hedge = { requestsPerCall: num, p50: nullableNum, p99: nullableNum, p999: nullableNum, viewsSeeingP99: num };

/** GET /api/fanout. */
export const fanoutResponseSchema = z.object({
  method: str,
  primary: str,
  secondary: str,
  report: z.object({
    p99Ms: nullableNum,
    fanout: num,
    viewsSeeingP99: num,
    single: z.object(hedge),
    secondary: z.object(hedge),
    bestOfTwo: z.object(hedge),
    hedged: z.object({ ...hedge, delayMs: num }),
    pairs: num,
    race: z.nullable(z.object({ ...hedge, target: str, count: num })),
  }),
});
export type FanoutResponse = z.infer<typeof fanoutResponseSchema>;
