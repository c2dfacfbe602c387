// GET /api/changes: level shifts found in the rollups (shared/changes/,
// docs/changes.md), ordered by time, each with the part of the path that
// moved. The items are also what the alerts' TailRegression reads
// (server/changes/source.ts).
import { CHANGE_VERDICTS } from "../changes/attribute.js";
import { STATISTICS } from "../changes/detect.js";
import { z } from "../zod.js";
import { count, ms, nullableMs, seriesKeyShape } from "./fields.js";
import { queryInt, sampleFilterQueryShape } from "./query-string.js";

export { CHANGE_VERDICTS } from "../changes/attribute.js";
export { STATISTICS as CHANGE_STATISTICS } from "../changes/detect.js";

/** Longest range one request may ask about (ms): past the hour rollups' default retention (400 days) there is nothing. */
export const CHANGES_RANGE_MS_MAX = 400 * 86_400_000;

/**
 * - from, to: epoch ms, both required; changes with t in [from, to]
 * - method, target: comma lists (default: every series)
 * - client: one client's public id (default: every client, and each client's own changes)
 */
export const changesQuerySchema = z
  .strictObject({
    from: queryInt,
    to: queryInt,
    method: sampleFilterQueryShape.method,
    target: sampleFilterQueryShape.target,
    client: sampleFilterQueryShape.client,
  })
  .check(
    z.refine((q) => q.from <= q.to, "from must not be after to"),
    z.refine((q) => q.to - q.from <= CHANGES_RANGE_MS_MAX, "the range must be at most 400 days"),
  );
export type ChangesQuery = z.infer<typeof changesQuerySchema>;

const statistic = z.enum(STATISTICS);

/** One statistic's move: before and after (ms), after/before, and Welch's p of the cells' shares above the pooled quantile. */
const moveSchema = z.object({ statistic, before: ms, after: ms, ratio: ms, p: ms });
/** A part of the path over the same windows (ms; null: not measured there). */
const partSchema = z.object({ ...seriesKeyShape, before: nullableMs, after: nullableMs });

export const changeSchema = z.object({
  /** Stable while the change stands: series, client, statistic and t. */
  id: z.string(),
  ...seriesKeyShape,
  /** Public id of the one client the change is in, or null for every client's. */
  client: z.nullable(z.string()),
  /** When it shows (epoch ms): the start of the first time bucket after it. */
  t: ms,
  /** The change happened in [earliestT, t + resolutionMs): the buckets either side of t (either may hold both levels), and any gap between them. */
  earliestT: ms,
  /** The statistic that moved the most, its value before and after (ms) and after/before. */
  statistic,
  before: ms,
  after: ms,
  ratio: ms,
  /** Welch's two-sided p of that statistic's test. */
  p: ms,
  verdict: z.enum(CHANGE_VERDICTS),
  /** One sentence: the move, then each part beside it, then the verdict. */
  evidence: z.string(),
  /** The windows compared: [beforeFrom, t) and [t, afterTo). */
  beforeFrom: ms,
  afterTo: ms,
  samplesBefore: count,
  samplesAfter: count,
  /** Width of the time buckets the change was placed on (ms): 5 minutes, or an hour where those are gone. */
  resolutionMs: ms,
  /** Every statistic that moved, the largest first. */
  moves: z.array(moveSchema),
  /** The same statistic on the baselines and the server time beside it. */
  parts: z.array(partSchema),
});
export type Change = z.infer<typeof changeSchema>;

export const changesResponseSchema = z.object({ from: ms, to: ms, changes: z.array(changeSchema) });
export type ChangesResponse = z.infer<typeof changesResponseSchema>;
