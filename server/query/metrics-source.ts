// What /metrics reports, computed behind one function so it can move to the
// rollup histograms when those land: today a paged scan of every stored sample.
import type { Store } from "../store/store.js";
import { openPageReader } from "./sample-pages.js";

/** Upper bounds of the latency buckets (seconds), Prometheus' `le`: 0.5 ms to 30 s, roughly 1-2.5-5 per decade. */
export const LATENCY_BUCKETS_S = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
] as const;

export interface LatencySeries {
  method: string;
  target: string;
  /** Cumulative counts: bucketCounts[i] = ok samples with latency ≤ LATENCY_BUCKETS_S[i]. */
  bucketCounts: number[];
  /** Ok samples (the +Inf bucket). */
  count: number;
  /** Sum of their latencies (seconds). */
  sumS: number;
}

export interface MetricsSnapshot {
  latency: LatencySeries[];
  /** Samples per (method, target, outcome). */
  outcomes: { method: string; target: string; outcome: string; count: number }[];
}

export async function metricsSnapshot(store: Store, nowMs: number): Promise<MetricsSnapshot> {
  const latency = new Map<string, LatencySeries & { perBucket: number[] }>();
  const outcomes = new Map<string, { method: string; target: string; outcome: string; count: number }>();
  const reader = openPageReader(store);
  try {
    for await (const page of reader.pages({ fromMs: 0, toMs: nowMs })) {
      for (const r of page) {
        const method = r[4];
        const target = r[5];
        const ms = r[6];
        const outcome = r[7];
        const ok = `${method}\u0000${target}\u0000${outcome}`;
        const o = outcomes.get(ok);
        if (o === undefined) outcomes.set(ok, { method, target, outcome, count: 1 });
        else o.count++;
        if (outcome !== "ok" || ms === null) continue;
        const key = `${method}\u0000${target}`;
        let s = latency.get(key);
        if (s === undefined) {
          s = { method, target, bucketCounts: [], count: 0, sumS: 0, perBucket: new Array<number>(LATENCY_BUCKETS_S.length).fill(0) };
          latency.set(key, s);
        }
        const sec = ms / 1000;
        s.count++;
        s.sumS += sec;
        // Counted in the first bucket it fits; made cumulative below.
        const i = LATENCY_BUCKETS_S.findIndex((le) => sec <= le);
        if (i >= 0) s.perBucket[i]!++;
      }
    }
  } finally {
    reader.close();
  }
  const byKey = <T extends { method: string; target: string }>(a: T, b: T) =>
    a.method.localeCompare(b.method) || a.target.localeCompare(b.target);
  return {
    latency: [...latency.values()].sort(byKey).map(({ perBucket, ...s }) => {
      let run = 0;
      return { ...s, bucketCounts: perBucket.map((c) => (run += c)) };
    }),
    outcomes: [...outcomes.values()].sort((a, b) => byKey(a, b) || a.outcome.localeCompare(b.outcome)),
  };
}
