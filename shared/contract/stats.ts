// GET /api/stats: the sample filters (query-string.ts) in, one summary row
// per (method, target) out. The summary is shared/stats.ts's: its type is
// inferred here, so the math and the wire cannot drift apart.
import { BROWSER_ENGINES } from "../methods.js";
import { z } from "../zod.js";
import { count, nullableMs, seriesKeyShape } from "./fields.js";
import { sampleFilterQueryShape } from "./query-string.js";

export const statsQuerySchema = z.strictObject({ ...sampleFilterQueryShape }).check(
  z.refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: "from must not be after to",
  }),
);
export type StatsQuery = z.infer<typeof statsQuerySchema>;

/** Nearest-rank summary of a latency population (shared/stats.ts); null figures for an empty one. */
const summaryShape = {
  /** Samples in the latency figures below: the ok ones (with timeouts=1, the timeouts too, at their timeout value). */
  count,
  min: nullableMs,
  p10: nullableMs,
  p50: nullableMs,
  mean: nullableMs,
  p90: nullableMs,
  p99: nullableMs,
  p999: nullableMs,
  max: nullableMs,
};
const summarySchema = z.object(summaryShape);
export type Summary = z.infer<typeof summarySchema>;

export const statsRowSchema = z.object({
  ...seriesKeyShape,
  ...summaryShape,
  /** timeout + error samples. */
  failures: count,
  /** Ticks recorded as skipped (frozen page, asleep machine, probe cap). */
  skipped: count,
  /**
   * The step (ms) of the clock that timed this series: the coarsest of the
   * range's sessions for the probes a page times (xhr, jsonp, ws, best2);
   * null for baselines, which the servers measure. Values are multiples of it.
   * Always present in /api/stats (optional for the query layer's rows).
   */
  timerResolutionMs: z.optional(z.nullable(z.number().check(z.minimum(0)))),
});
export type StatsRow = z.infer<typeof statsRowSchema>;

/** The sessions of one engine in a range: how many, and the coarsest clock step (ms) they reported. */
export const sessionClockSchema = z.object({
  engine: z.nullable(z.enum(BROWSER_ENGINES)),
  sessions: count,
  timerResolutionMs: z.nullable(z.number().check(z.minimum(0))),
});
export type SessionClock = z.infer<typeof sessionClockSchema>;

/** GET /api/stats. */
export const statsResponseSchema = z.object({
  from: z.number(),
  to: z.number(),
  rows: z.array(statsRowSchema),
  /**
   * The coarsest timer resolution (ms) reported by the sessions whose samples
   * are in the range: browser latencies are multiples of it (0.1 without
   * cross-origin isolation, 0.005 with it). null when no session reported one.
   */
  timerResolutionMs: z.nullable(z.number().check(z.minimum(0))),
  /** Per engine of the range's sessions (engine null: sessions that did not say): how many, and their coarsest step. */
  engines: z.array(sessionClockSchema),
});
export type StatsResponse = z.infer<typeof statsResponseSchema>;
