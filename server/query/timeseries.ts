// GET /api/timeseries from rollups: per aligned bucket, count, failures and max exact, p50/p90/p99 within ±1 %.
import type { TimeseriesResponse } from "../../shared/contract/index.js";
import type { Pace } from "../store/read-pool.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { msOf, percentilesMs, sortedSeries, tailOf } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";
import { bucketStarts, rollupTimeAxis } from "./time-axis.js";

const TIMESERIES_PERCENTILES = [50, 90, 99] as const;

export async function rollupTimeseries(ctx: ReadContext, filter: SampleFilter, bucketMs: number | undefined, pace: Pace): Promise<TimeseriesResponse> {
  const axis = await rollupTimeAxis(ctx, filter, bucketMs);
  const n = axis.buckets;
  const merged = n === 0 ? new Map() : await readMerged(ctx, { ...filter, fromMs: axis.fromMs }, axis, pace);
  const series: TimeseriesResponse["series"] = sortedSeries(merged).map(({ series: s, buckets }) => {
    const row: TimeseriesResponse["series"][number] = {
      method: s.method,
      target: s.target,
      count: new Array<number>(n).fill(0),
      failures: new Array<number>(n).fill(0),
      p50: new Array<number | null>(n).fill(null),
      p90: new Array<number | null>(n).fill(null),
      p99: new Array<number | null>(n).fill(null),
      max: new Array<number | null>(n).fill(null),
    };
    for (const [i, c] of buckets) {
      const r = tailOf(c, filter.timeoutsInTail === true);
      row.failures[i] = c.failures;
      row.count[i] = r.count;
      if (r.count === 0) continue;
      const [p50 = null, p90 = null, p99 = null] = percentilesMs(r, TIMESERIES_PERCENTILES);
      row.p50[i] = p50;
      row.p90[i] = p90;
      row.p99[i] = p99;
      row.max[i] = msOf(r.max);
    }
    return row;
  });
  return { from: axis.fromMs, to: filter.toMs, bucketMs: axis.bucketMs, t: bucketStarts(axis), series };
}
