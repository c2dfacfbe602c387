// Per-series totals over a range, always from rollups (aggregate rows for the
// whole days, 6 hours, hours and 5 minutes, raw samples only at the edges),
// so the cost follows the number of rollup rows, not of samples: what /metrics
// reads on every scrape. Counts, sum, min and max are exact; the latency
// histogram is the merged rollup (scale-7 buckets, shared/rollup.ts).
import type { Rollup } from "../../shared/rollup.js";
import type { Pace } from "../store/read-pool.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { mergedCell, sortedSeries } from "./cells.js";
import { readMerged, type ReadContext } from "./reader.js";

export interface SeriesTotals {
  method: string;
  target: string;
  /** Latencies of ok samples (µs): count is /api/stats' count. */
  ok: Rollup;
  /** Timeouts stored with their timeout value. */
  timeouts: number;
  /** timeout + error samples: /api/stats' failures. */
  failures: number;
  skipped: number;
}

export async function seriesTotals(ctx: ReadContext, filter: SampleFilter, pace: Pace): Promise<SeriesTotals[]> {
  const merged = await readMerged(ctx, filter, null, pace);
  return sortedSeries(merged).map(({ series, buckets }) => {
    const c = mergedCell(buckets);
    return { method: series.method, target: series.target, ok: c.lat, timeouts: c.tmo.count, failures: c.failures, skipped: c.skipped };
  });
}
