// Per server and time bucket, how its probes ended and how fast they were,
// every method of the filter merged (the status page: uptime from every
// probe of a server, latency from the browser's own). Always from rollups
// (raw samples only at the range's partial edges), so 90 days of a busy
// deployment read one day row per series and day, whatever the sample count.
import { emptyCell, mergeCell, type RollupCell } from "../store/rollup-batch.js";
import type { Pace } from "../store/pace.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { percentilesMs } from "./cells.js";
import { readMerged, type Axis, type ReadContext } from "./reader.js";

export interface TargetBucket {
  /** Probes that answered. */
  ok: number;
  /** Probes that timed out or failed (skipped ticks are neither). */
  failures: number;
  /** Percentiles of the latency methods' ok probes (ms, within ±1 %); null with none. */
  p50: number | null;
  p99: number | null;
}

export interface TargetBuckets {
  target: string;
  /** One per axis bucket (one in all without an axis). */
  buckets: TargetBucket[];
}

export interface TargetHealthQuery {
  /** Buckets, or null for one over the whole range. */
  axis: Axis | null;
  /** Methods whose ok latencies make the percentiles (the others count in ok and failures only). */
  latencyMethods: readonly string[];
}

export async function targetHealth(
  ctx: ReadContext,
  filter: SampleFilter,
  q: TargetHealthQuery,
  pace: Pace,
): Promise<TargetBuckets[]> {
  const merged = await readMerged(ctx, filter, q.axis, pace);
  const n = q.axis?.buckets ?? 1;
  const latencyMethods = new Set(q.latencyMethods);
  const byTarget = new Map<string, { counts: { ok: number; failures: number }[]; latency: RollupCell[] }>();
  for (const { series, buckets } of merged.values()) {
    let t = byTarget.get(series.target);
    if (t === undefined) {
      t = {
        counts: Array.from({ length: n }, () => ({ ok: 0, failures: 0 })),
        latency: Array.from({ length: n }, () => emptyCell(-1, 0, -1, 0, 0)),
      };
      byTarget.set(series.target, t);
    }
    for (const [i, c] of buckets) {
      if (i < 0 || i >= n) continue;
      t.counts[i]!.failures += c.failures;
      t.counts[i]!.ok += c.lat.count;
      if (latencyMethods.has(series.method)) mergeCell(t.latency[i]!, c);
    }
    await pace.maybeYield();
  }
  return [...byTarget]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([target, t]) => ({
      target,
      buckets: t.counts.map((c, i) => {
        const [p50 = null, p99 = null] = percentilesMs(t.latency[i]!.lat, [50, 99]);
        return { ok: c.ok, failures: c.failures, p50, p99 };
      }),
    }));
}
