// GET /api/fanout: the same ticks' latencies to two servers (same session,
// same due time, same method), paired, or the two legs of the page's own
// best-of-two races; then shared/forensics/fanout.
import type { FanoutResponse } from "../../shared/contract/index.js";
import { fanoutReport } from "../../shared/forensics/fanout.js";
import { best2Target } from "../../shared/names.js";
import { percentileSorted } from "../../shared/stats.js";
import type { SampleFilter } from "../store/sample-filter.js";
import type { Store } from "../store/store.js";
import { hasLatency } from "./forensic-rows.js";
import type { RawSampleRow } from "../store/page-reader.js";

/** Default hedge delay: the primary's p95, the usual "hedge past the 95th percentile" rule. */
export const HEDGE_DEFAULT_PERCENTILE = 95;

/**
 * The page sends each server's probe in its own slot of the tick, so the two
 * due times of one tick differ by a fraction of the interval: each sample to
 * the primary is paired with the secondary's sample nearest in due time,
 * within half the session's interval (the median gap between its own ticks).
 */
export function pairTicks(a: [number, number][], b: [number, number][], out: [number, number][]): void {
  if (a.length < 2 || b.length === 0) return;
  a.sort((x, y) => x[0] - y[0]);
  b.sort((x, y) => x[0] - y[0]);
  const gaps = a
    .slice(1)
    .map((x, i) => x[0] - a[i]![0])
    .sort((x, y) => x - y);
  const half = Math.max(1, gaps[Math.floor(gaps.length / 2)]!) / 2;
  let j = 0;
  for (const [due, ms] of a) {
    while (j < b.length && b[j]![0] < due - half) j++;
    if (j < b.length && Math.abs(b[j]![0] - due) < half) out.push([ms, b[j++]![1]]);
  }
}

/**
 * The two legs of one measured race, each timed from the race's start: the
 * winner's latency is the race's, the loser's is `otherMs`. Null unless both answered.
 */
function raceLegs(r: RawSampleRow): [ws: number, jsonp: number] | null {
  if (r[7] !== "ok" || r[6] === null || r[14] === null || r[15] !== "ok") return null;
  return r[13] === "ws" ? [r[6], r[14]] : [r[14], r[6]];
}

/**
 * method best2: the pairs are the legs of the page's own races to
 * PRIMARY+SECONDARY (WebSocket to the primary, JSONP to the secondary, sent
 * in one task), so best-of-two there is the race itself, and hedging asks the
 * JSONP leg only after d. Any other method: that method's samples to the two
 * servers, paired by tick. Either way the measured race series is reported beside.
 */
export async function fanoutQuery(
  store: Pick<Store, "openPageReader">,
  filter: SampleFilter,
  method: string,
  primary: string,
  secondary: string,
  n: number,
  hedgeMs: number | undefined,
): Promise<FanoutResponse> {
  const race = best2Target(primary, secondary);
  const raceMs: number[] = [];
  const legs: [number, number][] = [];
  // Per session: [due time, latency] of each server's samples.
  const bySession = new Map<number, { a: [number, number][]; b: [number, number][] }>();
  const reader = store.openPageReader();
  try {
    for await (const page of reader.pages({
      ...filter,
      methods: [...new Set([method, "best2"])],
      targets: [primary, secondary, race],
    }))
      for (const r of page) {
        if (r[4] === "best2") {
          if (r[5] !== race) continue;
          if (hasLatency(r)) raceMs.push(r[6]!);
          const l = method === "best2" ? raceLegs(r) : null;
          if (l !== null) legs.push(l);
          continue;
        }
        // Baselines and unsent ticks have no due time: they cannot be paired.
        if (!hasLatency(r) || r[8] === null) continue;
        let s = bySession.get(r[19]);
        if (s === undefined) bySession.set(r[19], (s = { a: [], b: [] }));
        (r[5] === primary ? s.a : s.b).push([r[8], r[6]!]);
      }
  } finally {
    reader.close();
  }
  const pairs: [number, number][] = legs;
  for (const s of bySession.values()) pairTicks(s.a, s.b, pairs);
  const sortedA = Float64Array.from(pairs, (p) => p[0]).sort();
  const delay = hedgeMs ?? percentileSorted(sortedA, HEDGE_DEFAULT_PERCENTILE) ?? 0;
  return { method, primary, secondary, report: fanoutReport(pairs, n, delay, { target: race, ms: raceMs }) };
}
