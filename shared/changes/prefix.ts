// Any window of consecutive cells as one pooled histogram, in O(log bins):
// a two-dimensional running sum (over cells, then over bins), so the
// detector can compare the windows before and after every candidate time
// without adding their histograms up again each time.
import { COARSE_STEPS, type Cell } from "./cells.js";

export class Prefix {
  /** Cells. */
  readonly n: number;
  /** Lowest coarse bin of any cell, and how many bins from there to the highest. */
  private readonly lo: number;
  private readonly width: number;
  /** cum[i·width + b]: values in cells [0, i) in bins lo..lo+b. */
  private readonly cum: Float64Array;

  constructor(cells: readonly Cell[]) {
    this.n = cells.length;
    let lo = Infinity;
    let hi = -1;
    for (const c of cells)
      if (c.bins.length > 0) {
        lo = Math.min(lo, c.bins[0]!);
        hi = Math.max(hi, c.bins[c.bins.length - 1]!);
      }
    this.lo = hi < 0 ? 0 : lo;
    this.width = hi < 0 ? 1 : hi - lo + 1;
    const w = this.width;
    const cum = new Float64Array((this.n + 1) * w);
    const row = new Float64Array(w);
    for (let i = 0; i < this.n; i++) {
      const c = cells[i]!;
      row.fill(0);
      for (let j = 0; j < c.bins.length; j++) row[c.bins[j]! - this.lo]! += c.counts[j]!;
      let run = 0;
      const prev = i * w;
      const next = (i + 1) * w;
      for (let b = 0; b < w; b++) {
        run += row[b]!;
        cum[next + b] = cum[prev + b]! + run;
      }
    }
    this.cum = cum;
  }

  /** Values in cells [i, j). */
  count(i: number, j: number): number {
    const last = this.width - 1;
    return this.cum[j * this.width + last]! - this.cum[i * this.width + last]!;
  }

  /** Values in cells [i, j) in bins up to lo+b (b relative; −1 = none). */
  private cdf(i: number, j: number, b: number): number {
    if (b < 0) return 0;
    if (b >= this.width) return this.count(i, j);
    return this.cum[j * this.width + b]! - this.cum[i * this.width + b]!;
  }

  /**
   * Quantile q (0 < q < 1) of cells [i, j) in µs: the value below which a
   * share q of them lies, interpolated on the log scale within its bin; null when empty.
   */
  quantile(i: number, j: number, q: number): number | null {
    const total = this.count(i, j);
    if (total <= 0) return null;
    const target = q * total;
    let a = 0;
    let b = this.width - 1;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.cdf(i, j, mid) >= target) b = mid;
      else a = mid + 1;
    }
    const below = this.cdf(i, j, a - 1);
    const inBin = this.cdf(i, j, a) - below;
    const k = this.lo + a;
    if (k === 0) return 1;
    const f = inBin > 0 ? Math.min(1, Math.max(0, (target - below) / inBin)) : 1;
    return 2 ** ((k - 1 + f) / COARSE_STEPS);
  }

  /** Values in cells [i, j) above `us`, a bin's values taken as spread evenly over it on the log scale (quantile's inverse). */
  above(i: number, j: number, us: number): number {
    const total = this.count(i, j);
    if (us < 1) return total;
    const x = Math.log2(us) * COARSE_STEPS;
    const k = Math.max(0, Math.ceil(x));
    const b = k - this.lo;
    if (b < 0) return total;
    if (b >= this.width) return 0;
    const below = this.cdf(i, j, b - 1);
    const inBin = this.cdf(i, j, b) - below;
    const f = k === 0 ? 1 : Math.min(1, Math.max(0, x - (k - 1)));
    return total - below - inBin * f;
  }
}

/** Quantile `level` (µs) of cells pooled (Prefix.quantile's rule), and how many values they hold; null for none. */
export function pooledQuantile(cells: readonly Cell[], level: number): { us: number; n: number } | null {
  let lo = Infinity;
  let hi = -1;
  let n = 0;
  for (const c of cells) {
    if (c.bins.length === 0) continue;
    lo = Math.min(lo, c.bins[0]!);
    hi = Math.max(hi, c.bins[c.bins.length - 1]!);
    n += c.count;
  }
  if (hi < 0 || n <= 0) return null;
  const dense = new Float64Array(hi - lo + 1);
  for (const c of cells) for (let j = 0; j < c.bins.length; j++) dense[c.bins[j]! - lo]! += c.counts[j]!;
  const target = level * n;
  let below = 0;
  for (let b = 0; b < dense.length; b++) {
    const inBin = dense[b]!;
    if (below + inBin >= target && inBin > 0) {
      const k = lo + b;
      if (k === 0) return { us: 1, n };
      const f = Math.min(1, Math.max(0, (target - below) / inBin));
      return { us: 2 ** ((k - 1 + f) / COARSE_STEPS), n };
    }
    below += inBin;
  }
  return { us: 2 ** (hi / COARSE_STEPS), n };
}
