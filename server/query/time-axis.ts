// The time axis of /api/timeseries and /api/heatmap: aligned buckets over the
// range, starting at the first stored sample when the range starts at 0.
import { EPOCH_MS_MIN } from "../../shared/contract/index.js";
import { axisFrom, type TimeAxis } from "../store/chart-queries.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { firstSampleMs, type ReadContext } from "./reader.js";

export type { TimeAxis } from "../store/chart-queries.js";
export { bucketStarts } from "../store/chart-queries.js";

export async function rollupTimeAxis(ctx: ReadContext, filter: SampleFilter, bucketMs: number | undefined): Promise<TimeAxis> {
  return axisFrom(filter.fromMs < EPOCH_MS_MIN ? await firstSampleMs(ctx, filter) : filter.fromMs, filter, bucketMs);
}
