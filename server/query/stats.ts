// GET /api/stats from rollups: count, failures, skipped, min, max and mean
// exact; percentiles within ±1 % of the exact nearest rank.
import type { StatsRow } from "../../shared/contract/index.js";
import type { Pace } from "../store/read-pool.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { mergedCell, msOf, percentileMs, sortedSeries, tailOf } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";

export async function rollupStats(ctx: ReadContext, filter: SampleFilter, pace: Pace): Promise<StatsRow[]> {
  const merged = await readMerged(ctx, filter, null, pace);
  return sortedSeries(merged).map(({ series, buckets }) => {
    const c = mergedCell(buckets);
    const r = tailOf(c, filter.timeoutsInTail === true);
    const n = r.count;
    return {
      method: series.method,
      target: series.target,
      count: n,
      failures: c.failures,
      skipped: c.skipped,
      min: msOf(r.min),
      p10: percentileMs(r, 10),
      p50: percentileMs(r, 50),
      mean: n === 0 ? null : r.sum / n / 1000,
      p90: percentileMs(r, 90),
      p99: percentileMs(r, 99),
      p999: percentileMs(r, 99.9),
      max: msOf(r.max),
    };
  });
}
