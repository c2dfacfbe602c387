// What /metrics reports: the rollups' running totals of every sample ever
// stored, one row per series (server/query/series-totals.ts), so a scrape
// reads as much on a month of samples as on an hour (bench/metrics-scrape.ts).
import { OUTCOMES } from "../../shared/methods.js";
import { countsAtOrBelow } from "../../shared/rollup.js";
import type { Queries } from "./queries.js";

/** Upper bounds of the latency buckets (seconds), Prometheus' `le`: 0.5 ms to 30 s, roughly 1-2.5-5 per decade. */
export const LATENCY_BUCKETS_S = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
] as const;

const US_PER_S = 1_000_000;
const LE_US = LATENCY_BUCKETS_S.map((le) => Math.round(le * US_PER_S));

export interface LatencySeries {
  method: string;
  target: string;
  /**
   * Cumulative counts: bucketCounts[i] ≈ ok samples with latency ≤ LATENCY_BUCKETS_S[i],
   * derived from the rollup buckets (shared/rollup.ts countsAtOrBelow: the exact count at
   * a bound within 0.54 % of it).
   */
  bucketCounts: number[];
  /** Ok samples (the +Inf bucket), exact. */
  count: number;
  /** Sum of their latencies (seconds), exact to the stored µs. */
  sumS: number;
}

export interface OutcomeCount {
  method: string;
  target: string;
  outcome: (typeof OUTCOMES)[number];
  count: number;
}

export interface MetricsSnapshot {
  latency: LatencySeries[];
  /** Samples per (method, target, outcome), every outcome of every series (zeros included, so `rate()` has a start). */
  outcomes: OutcomeCount[];
}

export async function metricsSnapshot(store: Pick<Queries, "seriesTotals">): Promise<MetricsSnapshot> {
  const totals = await store.seriesTotals();
  const byKey = <T extends { method: string; target: string }>(a: T, b: T) =>
    a.method.localeCompare(b.method) || a.target.localeCompare(b.target);
  totals.sort(byKey);
  const latency: LatencySeries[] = [];
  const outcomes: OutcomeCount[] = [];
  for (const s of totals) {
    const { method, target } = s;
    if (s.ok.count > 0) {
      latency.push({
        method,
        target,
        bucketCounts: countsAtOrBelow(s.ok, LE_US),
        count: s.ok.count,
        sumS: s.ok.sum / US_PER_S,
      });
    }
    // Rollups count timeouts by the value they carry; a timeout stored without one
    // (tailprobe's pages and baselines always send it) is counted as an error.
    const counts = { ok: s.ok.count, timeout: s.timeouts, error: s.failures - s.timeouts, skipped: s.skipped };
    for (const outcome of OUTCOMES) outcomes.push({ method, target, outcome, count: counts[outcome] });
  }
  return { latency, outcomes };
}
