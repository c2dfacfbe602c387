// GET /api/stats. From rollups: count, failures, skipped, min, max and mean
// exact; percentiles within ±1 % of the exact nearest rank. On the exact path
// (queries.ts chooses) from every sample of the range.
import type { StatsRow } from "../../shared/contract/index.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { mergedCell, msOf, percentileMs, sortedSeries, tailOf } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";
import { summarizeSorted } from "../../shared/stats.js";
import { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { scanSamples, SeriesMap } from "./raw-scan.js";
import { slicedSort } from "./sliced-sort.js";

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

/** The exact path: every ok latency of the range sorted, per series. */
export async function rawStats(pool: ReadPool, filter: SampleFilter, pace = new Pace()): Promise<StatsRow[]> {
  const groups = new SeriesMap(() => ({ values: [] as number[], failures: 0, skipped: 0 }));
  await scanSamples(pool, filter, pace, (_t, method, target, outcome, ms, inTail) => {
    const g = groups.get(method, target);
    if (inTail) g.values.push(ms!);
    // A timeout in the tail is still a failure: the failures column stays the same either way.
    if (outcome === "skipped") g.skipped++;
    else if (outcome !== "ok" || ms === null) g.failures++;
  });
  const rows: StatsRow[] = [];
  for (const { method, target, state } of groups.sorted()) {
    const sorted = await slicedSort(state.values, pace);
    state.values = [];
    rows.push({ method, target, failures: state.failures, skipped: state.skipped, ...summarizeSorted(sorted) });
    await pace.maybeYield();
  }
  return rows;
}
