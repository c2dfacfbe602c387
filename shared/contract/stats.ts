// GET /api/stats: the sample filters (query-string.ts) in, one summary row
// per (method, target) out. The summary is shared/stats.ts's: its type is
// inferred here, so the math and the wire cannot drift apart.
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
});
export type StatsRow = z.infer<typeof statsRowSchema>;

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
});
export type StatsResponse = z.infer<typeof statsResponseSchema>;
