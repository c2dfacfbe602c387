// The time axis of /api/timeseries and /api/heatmap: aligned buckets over the
// range, starting at the first stored sample when the range starts at 0.
import { chooseBucketMs, MAX_TIME_BUCKETS } from "../../shared/charts.js";
import { EPOCH_MS_MIN } from "../../shared/protocol.js";
import { QueryTooLargeError } from "../store/chart-queries.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { firstSampleMs, type ReadContext } from "./reader.js";

export interface TimeAxis {
  /** Resolved range start. */
  fromMs: number;
  bucketMs: number;
  /** Start of bucket 0, aligned to bucketMs. */
  t0: number;
  buckets: number;
}

export async function rollupTimeAxis(ctx: ReadContext, filter: SampleFilter, bucketMs: number | undefined): Promise<TimeAxis> {
  let fromMs = filter.fromMs;
  if (fromMs < EPOCH_MS_MIN) {
    const first = await firstSampleMs(ctx, filter);
    if (first === null) return { fromMs, bucketMs: bucketMs ?? chooseBucketMs(0), t0: 0, buckets: 0 };
    fromMs = first;
  }
  const width = bucketMs ?? chooseBucketMs(filter.toMs - fromMs);
  const first = Math.floor(fromMs / width);
  const buckets = Math.floor(filter.toMs / width) - first + 1;
  if (buckets > MAX_TIME_BUCKETS)
    throw new QueryTooLargeError(`${buckets} time buckets of ${width} ms; at most ${MAX_TIME_BUCKETS}: choose a larger bucketMs or a shorter range`);
  return { fromMs, bucketMs: width, t0: first * width, buckets };
}

export const bucketStarts = (axis: TimeAxis): number[] => Array.from({ length: axis.buckets }, (_, i) => axis.t0 + i * axis.bucketMs);
