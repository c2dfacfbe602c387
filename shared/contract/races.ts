// GET /api/races: how available each server was, and what best-of-two bought.
// The query is /api/stats's (statsQuerySchema); these are the answer's shapes.
import { BEST2_LEGS } from "../methods.js";
import { z } from "../zod.js";
import { count, nullableMs } from "./fields.js";

const pair = z.strictObject({ p50: nullableMs, p99: nullableMs });

/** One server's (or one best-of-two target's) share of probes that answered. */
export const availabilityRowSchema = z.strictObject({
  /** Server name, or "A+B" for best-of-two. */
  target: z.string(),
  /** Probes (xhr, jsonp, ws; or best2 races) that ended ok. */
  ok: count,
  /** Probes that ended in timeout or error. Skipped ticks count in neither. */
  failures: count,
  /** ok / (ok + failures), 0..1; null with no probes in the range. */
  share: z.nullable(z.number().check(z.minimum(0), z.maximum(1))),
});
export type AvailabilityRow = z.infer<typeof availabilityRowSchema>;

/** A single method a race is compared with: one of its own legs, measured alone. */
export const singleMethodSchema = z.strictObject({
  method: z.enum(BEST2_LEGS),
  target: z.string(),
  /** ok samples of that method alone in the range. */
  count: count,
  p50: nullableMs,
  p99: nullableMs,
});
export type SingleMethod = z.infer<typeof singleMethodSchema>;

export const best2RowSchema = z.strictObject({
  /** "A+B": WebSocket to A raced against JSONP to B. */
  target: z.string(),
  /** Races won by either leg (ok samples). */
  count: count,
  /** Races both legs lost (timeout or error). */
  failures: count,
  /** How many races each leg won. */
  wins: z.strictObject({ ws: count, jsonp: count }),
  /** Percentiles of the race's latency (first send to first reply), nearest rank, ms. */
  p50: nullableMs,
  p99: nullableMs,
  /** The legs alone: ws to the first server, jsonp to the second. */
  single: z.array(singleMethodSchema),
  /**
   * Against the faster single method, per percentile: min(single pX) − best2 pX (ms).
   * Positive means racing helped; null when a figure is missing.
   */
  saved: pair,
  /** Per race where both legs answered: how far the loser trailed the winner (otherMs − ms), percentiles, ms. */
  margin: pair,
});
export type Best2Row = z.infer<typeof best2RowSchema>;

export const racesResponseSchema = z.strictObject({
  from: z.number(),
  to: z.number(),
  availability: z.array(availabilityRowSchema),
  best2: z.array(best2RowSchema),
});
export type RacesResponse = z.infer<typeof racesResponseSchema>;
