// The time axis of /api/timeseries and /api/heatmap: aligned buckets over the
// range, starting at the first stored sample when the range starts at 0.
import { chooseBucketMs, EPOCH_MS_MIN, MAX_TIME_BUCKETS } from "../../shared/contract/index.js";
import type { ReadPool } from "../store/read-pool.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { firstSampleMs, type ReadContext } from "./reader.js";
import { QueryTooLargeError } from "./too-large.js";

export interface TimeAxis {
  /** Resolved range start: the first stored sample when `from` was left at the beginning of time. */
  fromMs: number;
  bucketMs: number;
  /** Start of bucket 0, aligned to bucketMs. */
  t0: number;
  buckets: number;
}

/**
 * The axis from a resolved start (epoch ms, or null when nothing is stored):
 * shared by the raw path and the rollup path below.
 */
export function axisFrom(fromMs: number | null, filter: SampleFilter, bucketMs: number | undefined): TimeAxis {
  if (fromMs === null) return { fromMs: filter.fromMs, bucketMs: bucketMs ?? chooseBucketMs(0), t0: 0, buckets: 0 };
  const width = bucketMs ?? chooseBucketMs(filter.toMs - fromMs);
  const first = Math.floor(fromMs / width);
  const buckets = Math.floor(filter.toMs / width) - first + 1;
  if (buckets > MAX_TIME_BUCKETS)
    throw new QueryTooLargeError(
      `${buckets} time buckets of ${width} ms; at most ${MAX_TIME_BUCKETS}: choose a larger bucketMs or a shorter range`,
    );
  return { fromMs, bucketMs: width, t0: first * width, buckets };
}

export async function rawTimeAxis(
  pool: ReadPool,
  filter: SampleFilter,
  bucketMs: number | undefined,
): Promise<TimeAxis> {
  if (filter.fromMs >= EPOCH_MS_MIN) return axisFrom(filter.fromMs, filter, bucketMs);
  // "Everything" must not mean buckets back to 1970: start at the first
  // stored sample. Only the time bounds, not the other filters: the first
  // t is then found in the first bucket that has one, where a filtered
  // search could walk every block in one uninterruptible step.
  return axisFrom(await pool.raw.firstT(filter.fromMs, filter.toMs), filter, bucketMs);
}

export function bucketStarts(axis: TimeAxis): number[] {
  return Array.from({ length: axis.buckets }, (_, i) => axis.t0 + i * axis.bucketMs);
}

export async function rollupTimeAxis(
  ctx: ReadContext,
  filter: SampleFilter,
  bucketMs: number | undefined,
): Promise<TimeAxis> {
  return axisFrom(filter.fromMs < EPOCH_MS_MIN ? await firstSampleMs(ctx, filter) : filter.fromMs, filter, bucketMs);
}
