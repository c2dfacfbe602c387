// The forensics endpoints' contract: query strings parsed from `unknown` on
// the server and the JSON answers the histogram page parses back.
//   GET /api/attribution  why one sample (a tail point, a heatmap cell, a time bucket) was slow
//   GET /api/compare      two series, or two time ranges of one, compared
//   GET /api/periodicity  repeating patterns and aligned tails in bucketed p90/p99
//   GET /api/fanout       fan-out and hedging from two servers' measured pairs
import { queryInt, sampleFilterQueryShape } from "../contract/index.js";
import { PROBE_METHODS } from "../methods.js";
import { CLIENT_TOKEN_PATTERN, TARGET_PATTERN } from "../names.js";
import { z } from "../zod.js";
import type { Breakdown, ForensicSample, Verdict } from "./attribution.js";
import type { Comparison } from "./compare.js";
import type { FanoutReport } from "./fanout.js";
import type { Alignment, Periodicity } from "./periodicity.js";

/** Query-string latency (ms): a decimal number ≥ 0. */
const queryMs = z.pipe(
  z.string().check(z.regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a latency in ms")),
  z.transform(Number),
);
/** "method@target", the page's series id. */
const seriesSpec = z.string().check(z.regex(/^[a-z0-9]{2,16}@[A-Za-z0-9][A-Za-z0-9_.+-]{0,64}$/, "must be METHOD@TARGET"));

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
  );
export type AttributionQuery = z.infer<typeof attributionQuerySchema>;

export interface AttributionResponse {
  /** The sample explained, null when the series has no sample there. */
  /** `client`: the client's public id (as in /api/clients), never its clientId. */
  sample: (ForensicSample & { client: string }) | null;
  breakdown: Breakdown | null;
  verdict: Verdict | null;
  /** The same client's samples in the same second, every method and server. */
  neighbours: ForensicSample[];
  /** Typical (median) latency per "method target" around the sample (ms). */
  typicalMs: Record<string, number>;
}

export const compareQuerySchema = z.strictObject({
  ...sampleFilterQueryShape,
  a: seriesSpec,
  b: seriesSpec,
  /** Optional per-side time ranges and clients (epoch ms); default the shared from/to/client. */
  aFrom: z.optional(queryInt),
  aTo: z.optional(queryInt),
  bFrom: z.optional(queryInt),
  bTo: z.optional(queryInt),
  aClient: z.optional(z.string().check(z.regex(CLIENT_TOKEN_PATTERN))),
  bClient: z.optional(z.string().check(z.regex(CLIENT_TOKEN_PATTERN))),
});
export type CompareQuery = z.infer<typeof compareQuerySchema>;

export interface CompareResponse {
  a: { label: string; from: number; to: number; count: number };
  b: { label: string; from: number; to: number; count: number };
  /** Null when a side has no ok sample. */
  comparison: Comparison | null;
  /** Samples were capped to the newest COMPARE_SAMPLES_MAX per side. */
  capped: boolean;
}
export const COMPARE_SAMPLES_MAX = 200_000;

export const periodicityQuerySchema = z.strictObject({
  ...sampleFilterQueryShape,
  bucketMs: z.optional(z.pipe(queryInt, z.int().check(z.minimum(PERIOD_BUCKET_MS_MIN), z.maximum(86_400_000)))),
});
export type PeriodicityQuery = z.infer<typeof periodicityQuerySchema>;

export interface PeriodicityResponse {
  from: number;
  to: number;
  bucketMs: number;
  /** Start of the first bucket (epoch ms): peaks fall at t0 + firstPeakMs + k·periodMs. */
  t0: number;
  series: { method: string; target: string; p90: Periodicity; p99: Periodicity }[];
  /** Every pair of series, their bucketed p90 correlated; aligned ones first. */
  pairs: ({ a: string; b: string } & Alignment)[];
}

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
      (q) => q.method?.length === 1 && (PROBE_METHODS as readonly string[]).includes(q.method[0]!) && q.target?.length === 2,
      "name one probe method and two targets: target=PRIMARY,SECONDARY",
    ),
  );
export type FanoutQuery = z.infer<typeof fanoutQuerySchema>;

export interface FanoutResponse {
  method: string;
  primary: string;
  secondary: string;
  report: FanoutReport;
}

/** TARGET_PATTERN re-checked on the halves of a series spec. */
export function parseSeriesSpec(spec: string): { method: string; target: string } | null {
  const at = spec.indexOf("@");
  const method = spec.slice(0, at);
  const target = spec.slice(at + 1);
  return at > 0 && TARGET_PATTERN.test(target) ? { method, target } : null;
}
