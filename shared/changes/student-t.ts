// Welch's two-sample t-test and the Student t tail it needs: the change
// detector's significance test (docs/changes.md). The tail is the regularized
// incomplete beta function, evaluated by its continued fraction (modified
// Lentz); checked against SciPy to 1e-9 in tests/unit/changes-stats.test.ts.

/** Coefficients of Lanczos' approximation of ln Γ (g = 7, nine terms): ~15 significant digits for x > 0. */
const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + LANCZOS_G + 0.5;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const TINY = 1e-300;
const EPS = 1e-15;
const TERMS_MAX = 1000;

/** The continued fraction of I_x(a, b), converging fast for x < (a + 1) / (a + b + 2). */
function betaFraction(x: number, a: number, b: number): number {
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= TERMS_MAX; m++) {
    const m2 = 2 * m;
    // Even step, then odd step of the fraction.
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + num / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + num / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < EPS) break;
  }
  return h;
}

/** Regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1, a, b > 0. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const front = Math.exp(lnFront);
  // The fraction converges on one side of the mean; the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) covers the other.
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** Two-sided tail P(|T| ≥ |t|) of Student's t with df degrees of freedom (df > 0, not necessarily whole). */
export function studentTwoSided(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

export interface WelchResult {
  t: number;
  df: number;
  /** Two-sided p-value. */
  p: number;
}

/** Mean and variance (n − 1 denominator) of a sample. */
export interface Moments {
  n: number;
  mean: number;
  variance: number;
}

/**
 * Welch's t-test of two samples given their moments (each n ≥ 2). Equal
 * means with no variance at all give p = 1; different means with none give p = 0.
 */
export function welch(a: Moments, b: Moments): WelchResult {
  const va = a.variance / a.n;
  const vb = b.variance / b.n;
  const se2 = va + vb;
  const diff = b.mean - a.mean;
  if (se2 <= 0)
    return diff === 0 ? { t: 0, df: a.n + b.n - 2, p: 1 } : { t: Math.sign(diff) * Infinity, df: a.n + b.n - 2, p: 0 };
  const t = diff / Math.sqrt(se2);
  const df = (se2 * se2) / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  return { t, df, p: studentTwoSided(t, df) };
}
