// GET /api/fanout: the same ticks' latencies to two servers (same session,
// same due time, same method), paired, then shared/forensics/fanout.
import type { FanoutResponse } from "../../shared/forensics/api.js";
import { fanoutReport } from "../../shared/forensics/fanout.js";
import { percentileSorted } from "../../shared/stats.js";
import type { SampleFilter, Store } from "../store/store.js";
import { hasLatency } from "./forensic-rows.js";
import { openPageReader } from "./sample-pages.js";

/** Default hedge delay: the primary's p95, the usual "hedge past the 95th percentile" rule. */
export const HEDGE_DEFAULT_PERCENTILE = 95;

export async function fanoutQuery(
  store: Store,
  filter: SampleFilter,
  method: string,
  primary: string,
  secondary: string,
  n: number,
  hedgeMs: number | undefined,
): Promise<FanoutResponse> {
  const first = new Map<string, number>();
  const second = new Map<string, number>();
  const reader = openPageReader(store);
  try {
    for await (const page of reader.pages({ ...filter, methods: [method], targets: [primary, secondary] }))
      for (const r of page) {
        // Baselines and unsent ticks have no due time: they cannot be paired.
        if (!hasLatency(r) || r[8] === null) continue;
        (r[5] === primary ? first : second).set(`${r[19]}:${r[8]}`, r[6]!);
      }
  } finally {
    reader.close();
  }
  const pairs: [number, number][] = [];
  for (const [key, a] of first) {
    const b = second.get(key);
    if (b !== undefined) pairs.push([a, b]);
  }
  const sortedA = Float64Array.from(pairs, (p) => p[0]).sort();
  const delay = hedgeMs ?? percentileSorted(sortedA, HEDGE_DEFAULT_PERCENTILE) ?? 0;
  return { method, primary, secondary, report: fanoutReport(pairs, n, delay) };
}
