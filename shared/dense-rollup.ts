// Merging many stored rollups into one (a whole range's stats, CDF or
// histogram) in an array of counts by bucket.
import { decodeInto } from "./rollup-codec.js";
import type { Rollup } from "./rollup.js";

/**
 * A rollup being merged from many stored ones (a whole range's stats, CDF or
 * histogram: thousands of rows into one cell per series): counts in an array
 * indexed by bucket, where a Map would hash every bucket of every row.
 * toRollup() gives the ordinary form, its buckets inserted in ascending order.
 */
export class DenseRollup {
  count = 0;
  min: number | null = null;
  max: number | null = null;
  sum = 0;
  zero = 0;
  /** counts[i + 1]: bucket i (indices start at -1). */
  private counts = new Float64Array(1024);
  private top = -1;

  /** Decodes a stored rollup straight into the counts (decodeInto). */
  addEncoded(blob: Uint8Array): void {
    decodeInto(blob, this, this);
  }

  addRollup(r: Rollup): void {
    if (r.count === 0) return;
    this.count += r.count;
    this.sum += r.sum;
    this.zero += r.zero;
    if (this.min === null || (r.min !== null && r.min < this.min)) this.min = r.min;
    if (this.max === null || (r.max !== null && r.max > this.max)) this.max = r.max;
    for (const [i, c] of r.buckets) this.add(i, c);
  }

  /** Adds c values to bucket i (a BucketSink for decodeInto). */
  add(i: number, c: number): void {
    const k = i + 1;
    if (k >= this.counts.length) {
      const grown = new Float64Array(Math.max(k + 1, this.counts.length * 2));
      grown.set(this.counts);
      this.counts = grown;
    }
    this.counts[k]! += c;
    if (k > this.top) this.top = k;
  }

  toRollup(): Rollup {
    const r: Rollup = {
      count: this.count,
      min: this.min,
      max: this.max,
      sum: this.sum,
      zero: this.zero,
      buckets: new Map(),
    };
    for (let k = 0; k <= this.top; k++) if (this.counts[k] !== 0) r.buckets.set(k - 1, this.counts[k]!);
    return r;
  }
}
