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

/**
 * How far (in bucket steps) log2(v)·2^scale must sit from a whole number for
 * its ceiling to be trusted without checking the edges: the float error of
 * log2 on values up to 2^53 is below 1e-12 steps.
 */
const EDGE_STEPS = 1e-9;

/** Bucket of a value ≥ 1 µs: the i with base^i < v ≤ base^(i+1). */
export function bucketIndex(us: number): number {
  const x = Math.log2(us) * STEPS;
  const i = Math.ceil(x) - 1;
  // Away from an edge the ceiling is exact; the ingest records every sample
  // into eight rollups, so the two powers below are worth skipping.
  if (x - Math.floor(x) > EDGE_STEPS && Math.ceil(x) - x > EDGE_STEPS) return i;
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
  recordInBucket(r, us, us === 0 ? -1 : bucketIndex(us), times);
}

/** record() with the value's bucketIndex already known (ignored for 0 µs): one value recorded into many rollups. */
export function recordInBucket(r: Rollup, us: number, bucket: number, times = 1): void {
  r.count += times;
  r.sum += us * times;
  if (r.min === null || us < r.min) r.min = us;
  if (r.max === null || us > r.max) r.max = us;
  if (us === 0) r.zero += times;
  else r.buckets.set(bucket, (r.buckets.get(bucket) ?? 0) + times);
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

/**
 * Bucket indices ascending, with their counts. A Map iterates in insertion
 * order, and one filled from a single stored rollup (mergeEncoded into an
 * empty one: most cells of a chart) was filled in ascending order, so the sort
 * is skipped when the keys already ascend; otherwise a typed array's numeric
 * sort (no comparator), counts looked up after.
 */
function sortedArrays(r: Rollup): { idx: Int32Array; cnt: Float64Array } {
  const idx = new Int32Array(r.buckets.size);
  const cnt = new Float64Array(r.buckets.size);
  fillSorted(r, idx, cnt);
  return { idx, cnt };
}

/** sortedArrays into arrays at least r.buckets.size long (encoding's scratch arrays); returns how many it filled. */
export function fillSorted(r: Rollup, idx: Int32Array, cnt: Float64Array): number {
  const n = r.buckets.size;
  let k = 0;
  let ascending = true;
  for (const [i, c] of r.buckets) {
    if (k > 0 && i < idx[k - 1]!) ascending = false;
    idx[k] = i;
    cnt[k++] = c;
  }
  if (!ascending) {
    idx.subarray(0, n).sort();
    for (let j = 0; j < n; j++) cnt[j] = r.buckets.get(idx[j]!)!;
  }
  return n;
}

/** Bucket indices ascending with their counts. */
export function sortedBuckets(r: Rollup): [number, number][] {
  const { idx, cnt } = sortedArrays(r);
  return Array.from(idx, (i, k) => [i, cnt[k]!] as [number, number]);
}

/**
 * A value standing for bucket i, within (base^i, base^(i+1)]: the one
 * integer there if there is only one (exact), else the geometric middle.
 */
export function bucketValue(i: number): number {
  const k = i + 1;
  if (k >= 0 && k < VALUE_CACHE.length) {
    const v = VALUE_CACHE[k]!;
    if (v !== 0) return v;
    return (VALUE_CACHE[k] = computeBucketValue(i));
  }
  return computeBucketValue(i);
}

/**
 * bucketValue per index from -1 (1 µs) up: every chart cell and percentile
 * asks for it, and each costs two powers and a logarithm. 4096 indices reach
 * 2^32 µs (71 minutes), past any timeout; 0 marks "not computed" (no bucket's value is 0).
 */
const VALUE_CACHE = new Float64Array(4096);

function computeBucketValue(i: number): number {
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
export function quantile(r: Rollup, p: number, sorted?: [number, number][]): number | null {
  if (sorted === undefined) return quantiles(r, [p])[0]!;
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
 * quantile() for several percentiles at once, from one ordered pass over the
 * buckets (a chart cell asks for three, a stats row for six).
 */
export function quantiles(r: Rollup, ps: readonly number[]): (number | null)[] {
  const out = new Array<number | null>(ps.length).fill(null);
  if (r.count === 0) return out;
  const ranks = ps.map((p) => nearestRank(p, r.count));
  const walk: number[] = [];
  ranks.forEach((rank, k) => {
    if (rank === r.count) out[k] = r.max;
    else if (rank === 1) out[k] = r.min;
    else if (rank <= r.zero) out[k] = 0;
    else walk.push(k);
  });
  if (walk.length === 0) return out;
  walk.sort((a, b) => ranks[a]! - ranks[b]!);
  const { idx, cnt } = sortedArrays(r);
  let seen = r.zero;
  let j = 0;
  for (let x = 0; x < idx.length && j < walk.length; x++) {
    const i = idx[x]!;
    seen += cnt[x]!;
    while (j < walk.length && seen >= ranks[walk[j]!]!)
      out[walk[j++]!] = Math.min(r.max!, Math.max(r.min!, bucketValue(i)));
  }
  for (; j < walk.length; j++) out[walk[j]!] = r.max;
  return out;
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
export function countAtOrBelow(r: Rollup, us: number): number {
  return countsAtOrBelow(r, [us])[0]!;
}

/**
 * countAtOrBelow for many bounds at once, in one walk over the buckets (a
 * /metrics scrape asks 15 bounds of every series; bound by bound, a month's
 * wide histograms cost most of the scrape). Bounds in any order; the answer
 * is in theirs.
 */
export function countsAtOrBelow(r: Rollup, bounds: readonly number[]): number[] {
  const out = new Array<number>(bounds.length).fill(0);
  const order = bounds.map((_, k) => k).sort((a, b) => bounds[a]! - bounds[b]!);
  const { idx, cnt } = sortedArrays(r);
  let below = r.zero; // values in buckets wholly at or below the current bound
  let k = 0;
  for (const b of order) {
    const us = bounds[b]!;
    if (us < 0) continue;
    let n = below;
    for (; k < idx.length; k++) {
      // Integers in bucket i: (floor(lower), floor(upper)].
      const i = idx[k]!;
      const hi = Math.floor(bucketUpper(i));
      if (hi <= us) {
        below += cnt[k]!;
        n = below;
        continue;
      }
      const lo = Math.floor(bucketUpper(i - 1)) + 1;
      if (lo <= us) n += Math.round((cnt[k]! * (Math.floor(us) - lo + 1)) / (hi - lo + 1));
      break; // the next bound starts again at this bucket
    }
    out[b] = n;
  }
  return out;
}
