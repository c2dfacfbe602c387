// Mergeable latency histograms: the unit the store keeps per (time bucket,
// series, client, flag class) so a query over days merges a few thousand of
// them instead of sorting millions of samples.
//
// Buckets follow the OpenTelemetry exponential-histogram scheme at scale 7:
// base = 2^(2^-7) ≈ 1.00543, bucket i holds values in (base^i, base^(i+1)].
// Values are integer µs; 0 has its own zero bucket. A bucket is 0.54 % wide,
// so a quantile read from its geometric middle is within 0.27 % of the exact
// nearest-rank value, well inside the ±1 % the API promises (docs/api.md).
// count, min, max and sum (hence the mean) are kept exactly.
import { nearestRank } from "./stats.js";

export const ROLLUP_SCALE = 7;
/** Promised bound on a quantile read from a rollup, relative to the exact nearest-rank value. */
export const ROLLUP_RELATIVE_ERROR = 0.01;
const STEPS = 2 ** ROLLUP_SCALE;

export interface Rollup {
  /** Values recorded (µs, integers ≥ 0). */
  count: number;
  /** Smallest and largest value (µs); null when count is 0. */
  min: number | null;
  max: number | null;
  /** Sum of values (µs), exact while under 2^53. */
  sum: number;
  /** Values equal to 0 µs. */
  zero: number;
  /** Bucket index → count, for values ≥ 1 µs. */
  buckets: Map<number, number>;
}

export function emptyRollup(): Rollup {
  return { count: 0, min: null, max: null, sum: 0, zero: 0, buckets: new Map() };
}

/** Bucket of a value ≥ 1 µs: the i with base^i < v ≤ base^(i+1). */
export function bucketIndex(us: number): number {
  const i = Math.ceil(Math.log2(us) * STEPS) - 1;
  // Float error at a bucket's edge: the edge belongs to the lower bucket.
  if (bucketUpper(i) < us) return i + 1;
  if (bucketUpper(i - 1) >= us) return i - 1;
  return i;
}

/** Upper bound (inclusive, µs) of bucket i. */
export function bucketUpper(i: number): number {
  return 2 ** ((i + 1) / STEPS);
}

/** Records one value (integer µs ≥ 0); `times` copies at once. */
export function record(r: Rollup, us: number, times = 1): void {
  r.count += times;
  r.sum += us * times;
  if (r.min === null || us < r.min) r.min = us;
  if (r.max === null || us > r.max) r.max = us;
  if (us === 0) r.zero += times;
  else {
    const i = bucketIndex(us);
    r.buckets.set(i, (r.buckets.get(i) ?? 0) + times);
  }
}

/** Adds `b` into `a`. Merging is exact: merge(rollup(A), rollup(B)) = rollup(A ∪ B). */
export function mergeInto(a: Rollup, b: Rollup): void {
  if (b.count === 0) return;
  a.count += b.count;
  a.sum += b.sum;
  a.zero += b.zero;
  if (a.min === null || (b.min !== null && b.min < a.min)) a.min = b.min;
  if (a.max === null || (b.max !== null && b.max > a.max)) a.max = b.max;
  for (const [i, c] of b.buckets) a.buckets.set(i, (a.buckets.get(i) ?? 0) + c);
}

/** Bucket indices ascending with their counts. */
export function sortedBuckets(r: Rollup): [number, number][] {
  return [...r.buckets].sort((x, y) => x[0] - y[0]);
}

/**
 * A value standing for bucket i, within (base^i, base^(i+1)]: the one
 * integer there if there is only one (exact), else the geometric middle.
 */
export function bucketValue(i: number): number {
  const lower = 2 ** (i / STEPS);
  const upper = bucketUpper(i);
  const lo = Math.floor(lower) + 1;
  if (lo === Math.floor(upper) && bucketIndex(lo) === i) return lo;
  return Math.sqrt(lower * upper);
}

/**
 * Nearest-rank percentile p (0 < p ≤ 100) in µs; null when empty. Exact at
 * the first and last rank (min, max) and for 0; otherwise within ±1 %.
 */
export function quantile(r: Rollup, p: number, sorted = sortedBuckets(r)): number | null {
  if (r.count === 0) return null;
  const rank = nearestRank(p, r.count);
  if (rank === r.count) return r.max;
  if (rank === 1) return r.min;
  if (rank <= r.zero) return 0;
  let seen = r.zero;
  for (const [i, c] of sorted) {
    seen += c;
    if (seen >= rank) return Math.min(r.max!, Math.max(r.min!, bucketValue(i)));
  }
  return r.max;
}

/**
 * Values ≤ `us` (an integer µs bound), read from the buckets alone: every
 * bucket whose integers all lie at or below the bound, plus the share of the
 * one bucket the bound falls inside, taken as if its samples were spread
 * evenly over its integers (rounded to a whole count). So the answer lies
 * between the exact counts at that bucket's two edges (0.54 % apart): it is
 * the exact count at some bound within 0.54 % of `us`, off by at most the
 * samples of that one bucket, and exact when none lies in it. It depends on
 * the bucket counts only (not min or max), so it never decreases as values
 * are added: a Prometheus counter stays monotone from scrape to scrape.
 */
export function countAtOrBelow(r: Rollup, us: number, sorted = sortedBuckets(r)): number {
  if (us < 0) return 0;
  let n = r.zero;
  for (const [i, c] of sorted) {
    // Integers in bucket i: (floor(lower), floor(upper)].
    const lo = Math.floor(2 ** (i / STEPS)) + 1;
    const hi = Math.floor(bucketUpper(i));
    if (hi <= us) n += c;
    else if (lo <= us) n += Math.round((c * (Math.floor(us) - lo + 1)) / (hi - lo + 1));
    else break;
  }
  return n;
}

// ---- compact encoding ---------------------------------------------------------
// A rollup is stored as one BLOB of unsigned LEB128 varints: count, min, max,
// sum, zero, the number of buckets, then per bucket (index delta, count).
// Indices start at -1 (1 µs), so the first delta is taken from -1. A minute
// of one series is typically 20–60 buckets: ~60–150 bytes.

function pushVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** The stored form of a non-empty rollup. */
export function encodeRollup(r: Rollup): Uint8Array {
  const out: number[] = [];
  const sorted = sortedBuckets(r);
  for (const v of [r.count, r.min ?? 0, r.max ?? 0, r.sum, r.zero, sorted.length]) pushVarint(out, v);
  let prev = -1;
  for (const [i, c] of sorted) {
    pushVarint(out, i - prev);
    pushVarint(out, c);
    prev = i;
  }
  return Uint8Array.from(out);
}

/** Merges a stored rollup into `into`: the same as mergeInto(into, decoded), without building the decoded one. */
export function mergeEncoded(into: Rollup, blob: Uint8Array): void {
  let pos = 0;
  const next = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = blob[pos++];
      if (b === undefined) throw new Error("truncated rollup");
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  };
  const count = next();
  const min = next();
  const max = next();
  const sum = next();
  const zero = next();
  const n = next();
  if (count === 0) return;
  into.count += count;
  into.sum += sum;
  into.zero += zero;
  if (into.min === null || min < into.min) into.min = min;
  if (into.max === null || max > into.max) into.max = max;
  const buckets = into.buckets;
  let i = -1;
  for (let k = 0; k < n; k++) {
    i += next();
    const c = next();
    buckets.set(i, (buckets.get(i) ?? 0) + c);
  }
}
