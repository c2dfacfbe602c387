// Percentile-bootstrap confidence intervals for the difference of a
// percentile between two independent series. Resampling with replacement is
// done by counts over the sorted originals, so one resample costs O(n) and
// no sort: a p99 of 20,000 samples bootstraps 2,000 times in well under a second.
import { nearestRank } from "../stats.js";

export const BOOTSTRAP_RESAMPLES_DEFAULT = 2000;
export const CONFIDENCE_DEFAULT = 0.95;

export interface Interval {
  /** The statistic on the data as measured (ms). */
  estimate: number;
  /** Confidence bounds (ms). */
  lo: number;
  hi: number;
}

export interface BootstrapOptions {
  /** Uniform [0, 1) generator: pass a seeded one to make the interval repeatable. */
  random: () => number;
  resamples?: number;
  confidence?: number;
}

/** Linear-interpolated quantile of sorted values (numpy's default): used only over the bootstrap replicates. */
export function interpolatedQuantile(sorted: ArrayLike<number>, q: number): number {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Nearest-rank percentile p of one resample of `sorted`, drawn with `counts` as scratch space. */
function resamplePercentile(sorted: Float64Array, p: number, counts: Uint32Array, random: () => number): number {
  const n = sorted.length;
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[Math.floor(random() * n)]!++;
  const rank = nearestRank(p, n);
  let seen = 0;
  for (let i = 0; i < n; i++) {
    seen += counts[i]!;
    if (seen >= rank) return sorted[i]!;
  }
  return sorted[n - 1]!;
}

/**
 * Percentile p of a minus percentile p of b (nearest rank, as in shared/stats),
 * with a two-sided percentile-bootstrap interval.
 */
export function bootstrapPercentileDiff(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  p: number,
  options: BootstrapOptions,
): Interval {
  if (a.length === 0 || b.length === 0) throw new RangeError("bootstrap needs at least one value in each series");
  const sa = Float64Array.from(a).sort();
  const sb = Float64Array.from(b).sort();
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES_DEFAULT;
  const confidence = options.confidence ?? CONFIDENCE_DEFAULT;
  const ca = new Uint32Array(sa.length);
  const cb = new Uint32Array(sb.length);
  const diffs = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    diffs[r] = resamplePercentile(sa, p, ca, options.random) - resamplePercentile(sb, p, cb, options.random);
  }
  diffs.sort();
  const alpha = (1 - confidence) / 2;
  return {
    estimate: sa[nearestRank(p, sa.length) - 1]! - sb[nearestRank(p, sb.length) - 1]!,
    lo: interpolatedQuantile(diffs, alpha),
    hi: interpolatedQuantile(diffs, 1 - alpha),
  };
}
