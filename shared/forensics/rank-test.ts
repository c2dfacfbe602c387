// Mann–Whitney U (the two-sample Wilcoxon rank-sum test): do two series
// differ in location? Two-sided, as SciPy's `mannwhitneyu` computes it: exact
// when both samples are small and untied, else the normal approximation with
// tie correction and continuity correction.
import { normalSf } from "./normal.js";

/** Largest size of each sample for the exact null distribution (counts stay below 2^53: C(40,20) ≈ 1.4e11). */
export const EXACT_N_MAX = 20;

export interface RankTest {
  /** U of the first sample: pairs (a, b) with a > b, ties counting one half. */
  u: number;
  /** Two-sided p-value. */
  p: number;
  method: "exact" | "asymptotic";
  /** Standardised U for the asymptotic method (continuity-corrected), null for exact. */
  z: number | null;
}

/** Midranks (1-based) of the concatenation a ++ b, and the tie term Σ(t³ − t). */
function midranks(all: Float64Array): { ranks: Float64Array; tieTerm: number } {
  const n = all.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => all[i]! - all[j]!);
  const ranks = new Float64Array(n);
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && all[order[j + 1]!] === all[order[i]!]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]!] = rank;
    const t = j - i + 1;
    tieTerm += t * t * t - t;
    i = j + 1;
  }
  return { ranks, tieTerm };
}

/**
 * Number of arrangements giving each U for sizes m and n: the coefficients of
 * the Gaussian binomial [m+n choose n] in q, built one factor at a time.
 */
export function exactUCounts(m: number, n: number): Float64Array {
  const c = new Float64Array(m * n + 1);
  c[0] = 1;
  for (let i = 1; i <= n; i++) {
    // Multiply by (1 − q^(m+i)), then divide by (1 − q^i): the product stays a polynomial of degree m·i.
    const up = m + i;
    for (let k = m * i; k >= up; k--) c[k]! -= c[k - up]!;
    for (let k = i; k <= m * i; k++) c[k]! += c[k - i]!;
  }
  return c;
}

export function mannWhitneyU(a: ArrayLike<number>, b: ArrayLike<number>): RankTest {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) throw new RangeError("the rank test needs at least one value in each sample");
  const all = new Float64Array(n1 + n2);
  all.set(Array.from(a), 0);
  all.set(Array.from(b), n1);
  const { ranks, tieTerm } = midranks(all);
  let r1 = 0;
  for (let i = 0; i < n1; i++) r1 += ranks[i]!;
  const u1 = r1 - (n1 * (n1 + 1)) / 2;
  const u2 = n1 * n2 - u1;
  const uMax = Math.max(u1, u2);

  if (tieTerm === 0 && n1 <= EXACT_N_MAX && n2 <= EXACT_N_MAX) {
    const counts = exactUCounts(n1, n2);
    let total = 0;
    let atLeast = 0;
    for (let k = 0; k < counts.length; k++) {
      total += counts[k]!;
      if (k >= uMax) atLeast += counts[k]!;
    }
    return { u: u1, p: Math.min(1, (2 * atLeast) / total), method: "exact", z: null };
  }
  const n = n1 + n2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return { u: u1, p: 1, method: "asymptotic", z: 0 };
  const z = (uMax - mean - 0.5) / Math.sqrt(variance);
  return { u: u1, p: Math.min(1, 2 * normalSf(z)), method: "asymptotic", z };
}
