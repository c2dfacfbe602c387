// Periodicity and aligned tails over evenly bucketed percentiles (p90/p99 per
// time bucket, as /api/timeseries answers): the seed's "latency oscillation
// whose period no one could explain", and two client/server pairs whose
// tails moved in step.
import { normalSf } from "./normal.js";

/** A period must repeat at least this often in the range to be reported. */
export const PERIOD_CYCLES_MIN = 3;
/** Fisher's g-test level below which the strongest frequency is a period, not noise. */
export const PERIOD_P_MAX = 0.01;
/** Fewest non-empty buckets for either analysis. */
export const BUCKETS_MIN = 16;
/** Frequency grid refinement: periodogram evaluated at k/REFINE cycles per range around the peak. */
const REFINE = 8;
/** Correlation of bucketed p90 at or above this, and significant, means "tails move together". */
export const ALIGNED_R_MIN = 0.5;

export interface Periodicity {
  /** The repeating period (ms), or null when none stands out of the noise. */
  periodMs: number | null;
  /** Share of the series' variance at that frequency (0..1): how much of the wobble the period explains. */
  strength: number;
  /** Autocorrelation of the series at a lag of one period (−1..1), null without a period. */
  autocorrelation: number | null;
  /** Fisher's g-test p-value of the strongest Fourier frequency against white noise. */
  p: number;
  /** Buckets used (empty buckets are filled with the series' mean). */
  buckets: number;
  /** Where the wave peaks: first peak this long after the first bucket's start (ms), null without a period. */
  firstPeakMs: number | null;
}

/** Empty buckets → mean, then the mean removed: gaps neither add a period nor hide one. */
function centred(values: readonly (number | null)[]): { x: Float64Array; filled: number } {
  let sum = 0;
  let filled = 0;
  for (const v of values) if (v !== null && Number.isFinite(v)) (sum += v), filled++;
  const mean = filled === 0 ? 0 : sum / filled;
  return { x: Float64Array.from(values, (v) => (v !== null && Number.isFinite(v) ? v - mean : 0)), filled };
}

/** DFT of x at f cycles over the whole series (f need not be an integer). */
function dft(x: Float64Array, f: number): { re: number; im: number } {
  const n = x.length;
  let re = 0;
  let im = 0;
  const w = (2 * Math.PI * f) / n;
  for (let t = 0; t < n; t++) {
    re += x[t]! * Math.cos(w * t);
    im -= x[t]! * Math.sin(w * t);
  }
  return { re, im };
}

/** |DFT|² / n: the periodogram ordinate at f. */
function power(x: Float64Array, f: number): number {
  const { re, im } = dft(x, f);
  return (re * re + im * im) / x.length;
}

/**
 * Fisher's exact test for the largest of m periodogram ordinates: P(g ≥ observed)
 * under Gaussian white noise = Σ_k (−1)^(k−1) C(m,k) (1 − k·g)^(m−1), k ≤ 1/g.
 */
export function fisherG(g: number, m: number): number {
  let p = 0;
  let binom = 1;
  for (let k = 1; k <= m && k * g < 1; k++) {
    binom = (binom * (m - k + 1)) / k;
    p += (k % 2 === 1 ? 1 : -1) * binom * (1 - k * g) ** (m - 1);
  }
  return Math.min(1, Math.max(0, p));
}

export function autocorrelation(x: Float64Array, lag: number): number {
  let num = 0;
  let den = 0;
  for (let t = 0; t < x.length; t++) {
    den += x[t]! * x[t]!;
    if (t + lag < x.length) num += x[t]! * x[t + lag]!;
  }
  return den === 0 ? 0 : num / den;
}

export function detectPeriod(values: readonly (number | null)[], bucketMs: number): Periodicity {
  const { x, filled } = centred(values);
  const n = x.length;
  const none = (p: number): Periodicity => ({
    periodMs: null,
    strength: 0,
    autocorrelation: null,
    p,
    buckets: n,
    firstPeakMs: null,
  });
  if (filled < BUCKETS_MIN) return none(1);
  // Fourier frequencies 1..floor((n−1)/2): independent ordinates under white noise.
  const m = Math.floor((n - 1) / 2);
  const ordinates = new Float64Array(m);
  let total = 0;
  let bestK = 1;
  for (let k = 1; k <= m; k++) {
    const pk = power(x, k);
    ordinates[k - 1] = pk;
    total += pk;
    if (pk > ordinates[bestK - 1]!) bestK = k;
  }
  if (total === 0) return none(1);
  const g = ordinates[bestK - 1]! / total;
  const p = fisherG(g, m);
  if (p > PERIOD_P_MAX || bestK < PERIOD_CYCLES_MIN) return { ...none(p), strength: g };
  // A period rarely divides the range exactly: refine the peak between the neighbouring Fourier frequencies.
  let bestF = bestK;
  let bestPower = ordinates[bestK - 1]!;
  for (let i = -REFINE; i <= REFINE; i++) {
    const f = bestK + i / REFINE;
    if (f <= 0) continue;
    const pf = power(x, f);
    if (pf > bestPower) (bestPower = pf), (bestF = f);
  }
  const periodBuckets = n / bestF;
  // x(t) ≈ A·cos(w·t + φ) with φ the DFT's phase: it peaks where w·t + φ ≡ 0.
  const { re, im } = dft(x, bestF);
  const w = (2 * Math.PI * bestF) / n;
  const peak = (((-Math.atan2(im, re) / w) % periodBuckets) + periodBuckets) % periodBuckets;
  return {
    periodMs: periodBuckets * bucketMs,
    strength: g,
    autocorrelation: autocorrelation(x, Math.round(periodBuckets)),
    p,
    buckets: n,
    firstPeakMs: peak * bucketMs,
  };
}

export interface Alignment {
  /** Pearson correlation of the two series over buckets where both have a value. */
  r: number;
  /** Buckets compared. */
  n: number;
  /** Two-sided p-value of r against no correlation (Fisher z). */
  p: number;
  /** r ≥ ALIGNED_R_MIN and p < PERIOD_P_MAX: the tails rise and fall together. */
  aligned: boolean;
}

export function alignedTails(a: readonly (number | null)[], b: readonly (number | null)[]): Alignment {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x !== null && x !== undefined && y !== null && y !== undefined) xs.push(x), ys.push(y);
  }
  const n = xs.length;
  if (n < BUCKETS_MIN) return { r: 0, n, p: 1, aligned: false };
  const mx = xs.reduce((s, v) => s + v, 0) / n;
  const my = ys.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  const r = sxx === 0 || syy === 0 ? 0 : Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  const z = Math.atanh(Math.min(0.999999, Math.abs(r))) * Math.sqrt(n - 3);
  const p = Math.min(1, 2 * normalSf(z));
  return { r, n, p, aligned: r >= ALIGNED_R_MIN && p < PERIOD_P_MAX };
}
