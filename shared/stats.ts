// Summary statistics of a latency population.
//
// Percentile definition (nearest rank, the one the seed article's tables and
// most latency tools use): the p-th percentile of n sorted values is the value
// at 1-based rank ceil(p/100 * n), clamped to [1, n]. It is always a measured
// value, never an interpolation, so "p99.9 = 713 ms" means some probe really
// took 713 ms.
import type { Summary } from "./contract/stats.js";

export const SUMMARY_PERCENTILES = [10, 50, 90, 99, 99.9] as const;

/** 1-based nearest rank of percentile p (0 < p <= 100) among n values. */
export function nearestRank(p: number, n: number): number {
  // The epsilon keeps ceil(99.9/100 * 1000) at 999 despite 0.999 * 1000 = 999.0000000000001.
  const rank = Math.ceil((p / 100) * n - 1e-9);
  return Math.min(n, Math.max(1, rank));
}

/** p-th percentile of values already sorted ascending; null for an empty population. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[nearestRank(p, sorted.length) - 1] ?? null;
}

/** F(x): share of values (sorted ascending) ≤ x; the exact CDF at x. */
export function shareAtOrBelow(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo / sorted.length;
}

export function summarize(values: ArrayLike<number>): Summary {
  return summarizeSorted(Float64Array.from(values).sort());
}

/** `summarize` of values already sorted ascending (the server sorts large series in slices). */
export function summarizeSorted(sorted: ArrayLike<number>): Summary {
  const n = sorted.length;
  if (n === 0) {
    return { count: 0, min: null, p10: null, p50: null, mean: null, p90: null, p99: null, p999: null, max: null };
  }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  return {
    count: n,
    min: sorted[0]!,
    p10: percentileSorted(sorted, 10),
    p50: percentileSorted(sorted, 50),
    mean: sum / n,
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    p999: percentileSorted(sorted, 99.9),
    max: sorted[n - 1]!,
  };
}

/**
 * Fewest samples for which percentile p is more than the maximum: below
 * this, pN is just the largest value seen and says nothing about the tail.
 * A careful analyst wants ~10 samples beyond the percentile, hence the 10.
 */
export function samplesNeededFor(p: number): number {
  // 1 - 99.9/100 is not exactly 0.001 in floats; round off the noise before ceil.
  return Math.ceil(Number((10 / (1 - p / 100)).toPrecision(12)));
}
