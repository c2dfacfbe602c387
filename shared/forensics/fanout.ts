// Fan-out and hedging, from measured samples (the seed's "one request fans
// out to ten, so a 1 % tail hits 9.6 % of page views"). Latencies are the
// measured ones, timeouts at their timeout value; nothing here assumes a
// distribution.
import { percentileSorted, shareAtOrBelow } from "../stats.js";

/** Share of page views that see at least one request slower than x, when each makes n independent requests: 1 − F(x)^n. */
export function viewsSlowerThan(sorted: ArrayLike<number>, xMs: number, n: number): number {
  if (sorted.length === 0) return 0;
  const f = shareAtOrBelow(sorted, xMs);
  return 1 - f ** n;
}

/**
 * Share of page views with at least one request as slow as x or slower:
 * 1 − P(X < x)^n. With x the nearest-rank p99 this counts the p99 sample
 * itself, so a p99 that is the maximum (under 100 samples) still reaches some views.
 */
export function viewsAtOrBeyond(sorted: ArrayLike<number>, xMs: number, n: number): number {
  if (sorted.length === 0) return 0;
  return 1 - shareBelow(sorted, xMs) ** n;
}

/** P(X < x) over sorted values. */
export function shareBelow(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo / sorted.length;
}

export interface HedgeResult {
  /** Requests sent per call (1 for one server, 2 for best-of-two, 1 + P(no answer by d) for hedging). */
  requestsPerCall: number;
  p50: number | null;
  p99: number | null;
  p999: number | null;
  /** Share of page views of `fanout` calls with at least one call at or beyond the primary's p99 alone (p99Ms). */
  viewsSeeingP99: number;
}

export interface FanoutReport {
  /** p99 of the primary series alone (ms). */
  p99Ms: number | null;
  /** Requests per page view used. */
  fanout: number;
  /** Share of views with at least one request at or beyond the primary's p99 (= single.viewsSeeingP99). */
  viewsSeeingP99: number;
  /** The primary alone, on the measured pairs. */
  single: HedgeResult;
  /** The secondary alone, on the same pairs. */
  secondary: HedgeResult;
  /** min(A, B) on every measured pair: both asked at once. */
  bestOfTwo: HedgeResult;
  /** min(A, d + B): ask B only when A has not answered after d ms. */
  hedged: HedgeResult & { delayMs: number };
  /** Measured (A, B) pairs the two-server figures come from. */
  pairs: number;
  /**
   * The page's own best-of-two probe (method best2: WebSocket to one server and
   * JSONP to the other, sent in one task), as measured over the same range; null
   * when none was stored.
   */
  race: (HedgeResult & { target: string; count: number }) | null;
}

function summary(values: Float64Array, requestsPerCall: number, p99Ms: number | null, fanout: number): HedgeResult {
  values.sort();
  return {
    requestsPerCall,
    p50: percentileSorted(values, 50),
    p99: percentileSorted(values, 99),
    p999: percentileSorted(values, 99.9),
    viewsSeeingP99: p99Ms === null ? 0 : viewsAtOrBeyond(values, p99Ms, fanout),
  };
}

/**
 * `pairs` are measured latencies of the same tick to server A and server B
 * (same client, same method, same due time), so whatever the two paths share
 * (the client's Wi-Fi, its CPU) stays in the figures instead of being assumed away.
 * `race` are the latencies of measured best-of-two probes (ms) to report beside them.
 */
export function fanoutReport(
  pairs: readonly (readonly [number, number])[],
  fanout: number,
  hedgeDelayMs: number,
  race?: { target: string; ms: ArrayLike<number> },
): FanoutReport {
  const a = Float64Array.from(pairs, (p) => p[0]).sort();
  const p99Ms = percentileSorted(a, 99);
  const best = Float64Array.from(pairs, ([x, y]) => Math.min(x, y));
  const hedged = Float64Array.from(pairs, ([x, y]) => (x <= hedgeDelayMs ? x : Math.min(x, hedgeDelayMs + y)));
  const late = pairs.length === 0 ? 0 : pairs.filter(([x]) => x > hedgeDelayMs).length / pairs.length;
  const single = summary(Float64Array.from(a), 1, p99Ms, fanout);
  return {
    p99Ms,
    fanout,
    viewsSeeingP99: single.viewsSeeingP99,
    single,
    secondary: summary(
      Float64Array.from(pairs, (p) => p[1]),
      1,
      p99Ms,
      fanout,
    ),
    bestOfTwo: summary(best, 2, p99Ms, fanout),
    hedged: { ...summary(hedged, 1 + late, p99Ms, fanout), delayMs: hedgeDelayMs },
    pairs: pairs.length,
    race:
      race === undefined || race.ms.length === 0
        ? null
        : { ...summary(Float64Array.from(race.ms), 2, p99Ms, fanout), target: race.target, count: race.ms.length },
  };
}
