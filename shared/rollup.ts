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
function fillSorted(r: Rollup, idx: Int32Array, cnt: Float64Array): number {
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

// ---- compact encoding ---------------------------------------------------------
// A rollup is stored as one BLOB of unsigned LEB128 varints, in one of two forms.
//
// Compact (tag byte 0; store version 6 on): what the exact fields already say
// is not stored again. A sparse rollup (a 5-minute row of one client holds a
// few samples) spent most of its bytes on the first bucket's index and a count
// of 1 per bucket; this form is two thirds the size on a month of samples.
//   0, count, min                      count 1: the one value is min
//   max − min, sum − count·min, zero   max 0: every value is 0
//   [first bucket + 1]                 only when min is 0; else bucketIndex(min)
//                                      the last bucket is bucketIndex(max); if it is the first, done
//   first bucket's count − 1, the number of buckets between, and per bucket
//   between: (index gap − 1)·2 + (count > 1), then count − 2 if count > 1.
//   The last bucket holds the count left over.
// Legacy (versions 2-5; still written for a rollup whose fields and buckets
// disagree, which record() never makes): count, min, max, sum, zero, the
// number of buckets, then per bucket (index delta from −1, count). Its first
// byte is the count, never 0 in a stored rollup (an empty one is stored as NULL).

const COMPACT_TAG = 0;

type Exact = Pick<Rollup, "count" | "min" | "max" | "sum" | "zero">;

/**
 * Encoding's working arrays, one set for the module (encoding never awaits,
 * so no two interleave): the writer encodes a rollup row per cell per group,
 * tens of thousands a second at 2,000 tabs, and each then allocates only the
 * bytes it returns. a: a rollup's own buckets sorted; b: a stored rollup's as
 * decoded; c: the two merged; out: the bytes.
 */
const S = {
  aIdx: new Int32Array(64),
  aCnt: new Float64Array(64),
  bIdx: new Int32Array(64),
  bCnt: new Float64Array(64),
  bN: 0,
  bAscending: true,
  cIdx: new Int32Array(64),
  cCnt: new Float64Array(64),
  out: new Uint8Array(256),
  len: 0,
};

function grownIdx(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  if (n <= a.length) return a;
  const g = new Int32Array(Math.max(n, 2 * a.length));
  g.set(a);
  return g;
}

function grownCnt(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
  if (n <= a.length) return a;
  const g = new Float64Array(Math.max(n, 2 * a.length));
  g.set(a);
  return g;
}

/** A rollup's buckets into S.aIdx/S.aCnt, ascending; returns how many. */
function sortIntoA(r: Rollup): number {
  S.aIdx = grownIdx(S.aIdx, r.buckets.size);
  S.aCnt = grownCnt(S.aCnt, r.buckets.size);
  return fillSorted(r, S.aIdx, S.aCnt);
}

/** Appends v (an integer, 0 ≤ v < 2^53) to S.out as an unsigned LEB128 varint (pushVarint's bytes). */
function put(v: number): void {
  if (S.len + 8 > S.out.length) {
    const grown = new Uint8Array(2 * S.out.length);
    grown.set(S.out);
    S.out = grown;
  }
  const out = S.out;
  while (v >= 0x80) {
    out[S.len++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[S.len++] = v;
}

/** The stored form of a rollup whose n buckets are idx/cnt, ascending: compact when its fields allow, else legacy. */
function encodeArrays(r: Exact, idx: Int32Array, cnt: Float64Array, n: number): Uint8Array {
  S.len = 0;
  if (!encodeCompact(r, idx, cnt, n)) {
    S.len = 0;
    encodeLegacy(r, idx, cnt, n);
  }
  return S.out.slice(0, S.len);
}

/** The stored form of a non-empty rollup. */
export function encodeRollup(r: Rollup): Uint8Array {
  const n = sortIntoA(r);
  return encodeArrays(r, S.aIdx, S.aCnt, n);
}

/** decodeInto's sink that appends a stored rollup's buckets to S.bIdx/S.bCnt (reset bN and bAscending first). */
const arraySink = {
  add(i: number, c: number): void {
    const n = S.bN;
    if (n > 0 && i <= S.bIdx[n - 1]!) S.bAscending = false;
    if (n >= S.bIdx.length) {
      S.bIdx = grownIdx(S.bIdx, n + 1);
      S.bCnt = grownCnt(S.bCnt, n + 1);
    }
    S.bIdx[n] = i;
    S.bCnt[n] = c;
    S.bN = n + 1;
  },
};

/**
 * The stored form of `r` merged with a stored rollup (null: none), or null
 * when both are empty: what mergeEncoded then encodeRollup give, without a Map
 * of the stored buckets to fill and sort. The writer's case: a cell holds the
 * few samples of a batch, the stored row many buckets already in order, so the
 * two are joined in one pass. `r` is not changed.
 */
export function encodeMerged(r: Rollup, stored: Uint8Array | null): Uint8Array | null {
  if (stored === null) return r.count === 0 ? null : encodeRollup(r);
  const f: Exact = { count: r.count, min: r.min, max: r.max, sum: r.sum, zero: r.zero };
  S.bN = 0;
  S.bAscending = true;
  decodeInto(stored, f, arraySink);
  if (f.count === 0) return null;
  if (!S.bAscending) {
    // Not met in rows this store writes (both forms store buckets ascending): the general way.
    const m: Rollup = { ...f, count: 0, sum: 0, zero: 0, min: null, max: null, buckets: new Map() };
    mergeInto(m, r);
    mergeEncoded(m, stored);
    return encodeRollup(m);
  }
  const na = sortIntoA(r);
  const nb = S.bN;
  S.cIdx = grownIdx(S.cIdx, na + nb);
  S.cCnt = grownCnt(S.cCnt, na + nb);
  const { aIdx, aCnt, bIdx, bCnt, cIdx, cCnt } = S;
  let a = 0;
  let b = 0;
  let c = 0;
  while (a < na || b < nb) {
    const ia = a < na ? aIdx[a]! : Infinity;
    const ib = b < nb ? bIdx[b]! : Infinity;
    if (ia < ib) {
      cIdx[c] = ia;
      cCnt[c++] = aCnt[a++]!;
    } else if (ib < ia) {
      cIdx[c] = ib;
      cCnt[c++] = bCnt[b++]!;
    } else {
      cIdx[c] = ia;
      cCnt[c++] = aCnt[a++]! + bCnt[b++]!;
    }
  }
  return encodeArrays(f, cIdx, cCnt, c);
}

/** The compact form into S.out; false when the rollup's exact fields and buckets disagree (a hand-made rollup): those are not implied then. */
function encodeCompact(r: Exact, idx: Int32Array, cnt: Float64Array, n: number): boolean {
  const { count, min, max, sum, zero } = r;
  if (count < 1 || min === null || max === null || min > max || sum < count * min || zero > count) return false;
  if ((min === 0) !== zero > 0 || (max === 0) !== (zero === count)) return false;
  let inBuckets = 0;
  for (let k = 0; k < n; k++) inBuckets += cnt[k]!;
  if (inBuckets !== count - zero) return false;
  put(COMPACT_TAG);
  put(count);
  put(min);
  if (count === 1) return sum === min;
  put(max - min);
  put(sum - count * min);
  put(zero);
  if (max === 0) return true;
  const first = idx[0]!;
  const last = idx[n - 1]!;
  if (last !== bucketIndex(max)) return false;
  if (min === 0) put(first + 1);
  else if (first !== bucketIndex(min)) return false;
  if (first === last) return true;
  put(cnt[0]! - 1);
  put(n - 2);
  let prev = first;
  for (let k = 1; k < n - 1; k++) {
    const i = idx[k]!;
    const c = cnt[k]!;
    put((i - prev - 1) * 2 + (c > 1 ? 1 : 0));
    if (c > 1) put(c - 2);
    prev = i;
  }
  return true;
}

function encodeLegacy(r: Exact, idx: Int32Array, cnt: Float64Array, n: number): void {
  for (const v of [r.count, r.min ?? 0, r.max ?? 0, r.sum, r.zero, n]) put(v);
  let prev = -1;
  for (let k = 0; k < n; k++) {
    put(idx[k]! - prev);
    put(cnt[k]!);
    prev = idx[k]!;
  }
}

/** encodeRollup as versions 2-5 wrote it: for tests of what older files hold. */
export function encodeRollupLegacy(r: Rollup): Uint8Array {
  const n = sortIntoA(r);
  S.len = 0;
  encodeLegacy(r, S.aIdx, S.aCnt, n);
  return S.out.slice(0, S.len);
}

/** Whether a stored rollup is in the compact form (files before version 6 hold the legacy one). */
export const isCompactRollup = (blob: Uint8Array): boolean => blob[0] === COMPACT_TAG;

/**
 * Where decoding a stored rollup is: one cursor for the module, reset by
 * decodeInto, so reading the varints of hundreds of rows allocates nothing.
 * Decoding never awaits, so no two decodings interleave.
 */
const cursor = { blob: new Uint8Array(0) as Uint8Array, pos: 0 };

function varint(): number {
  const blob = cursor.blob;
  let v = 0;
  let mul = 1;
  for (;;) {
    const b = blob[cursor.pos++];
    if (b === undefined) throw new Error("truncated rollup");
    v += (b & 0x7f) * mul;
    if (b < 0x80) return v;
    mul *= 0x80;
  }
}

/** Adds a non-empty stored rollup's exact fields to a rollup or an accumulator. */
function addExact(
  into: Pick<Rollup, "count" | "sum" | "zero" | "min" | "max">,
  count: number,
  min: number,
  max: number,
  sum: number,
  zero: number,
): void {
  into.count += count;
  into.sum += sum;
  into.zero += zero;
  if (into.min === null || min < into.min) into.min = min;
  if (into.max === null || max > into.max) into.max = max;
}

/** What a stored rollup's buckets are added to. */
interface BucketSink {
  add(index: number, n: number): void;
}

/**
 * Decodes a stored rollup of either form: its exact fields are added to
 * `into`, each bucket to `sink`, one method call each: a month's stats merge
 * hundreds of kilobytes of these per query, so there is no closure and no
 * object per bucket.
 */
function decodeInto(
  blob: Uint8Array,
  into: Pick<Rollup, "count" | "sum" | "zero" | "min" | "max">,
  sink: BucketSink,
): void {
  cursor.blob = blob;
  cursor.pos = 0;
  if (blob[0] !== COMPACT_TAG) {
    const count = varint();
    const min = varint();
    const max = varint();
    const sum = varint();
    const zero = varint();
    const buckets = varint();
    if (count === 0) return;
    addExact(into, count, min, max, sum, zero);
    let i = -1;
    for (let j = 0; j < buckets; j++) {
      i += varint();
      sink.add(i, varint());
    }
    return;
  }
  cursor.pos = 1;
  const count = varint();
  const min = varint();
  if (count === 1) {
    addExact(into, 1, min, min, min, min === 0 ? 1 : 0);
    if (min > 0) sink.add(bucketIndex(min), 1);
    return;
  }
  const max = min + varint();
  const sum = count * min + varint();
  const zero = varint();
  const inBuckets = count - zero;
  if (inBuckets < 0 || (max === 0) !== (inBuckets === 0)) throw new Error("corrupt rollup");
  addExact(into, count, min, max, sum, zero);
  if (inBuckets === 0) return;
  const first = min === 0 ? varint() - 1 : bucketIndex(min);
  const last = bucketIndex(max);
  if (first === last) {
    sink.add(first, inBuckets);
    return;
  }
  const firstN = varint() + 1;
  const between = varint();
  sink.add(first, firstN);
  let left = inBuckets - firstN;
  let i = first;
  for (let j = 0; j < between; j++) {
    // Bucket gaps are far below 2^31 (indices reach ~6,000 at 2^48 µs): bit operations are exact.
    const step = varint();
    i += (step >>> 1) + 1;
    const n = (step & 1) === 0 ? 1 : varint() + 2;
    if (i >= last) throw new Error("corrupt rollup");
    sink.add(i, n);
    left -= n;
  }
  if (left < 1) throw new Error("corrupt rollup");
  sink.add(last, left);
}

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

/** Merges a stored rollup into `into`: the same as mergeInto(into, decoded), without building the decoded one. */
export function mergeEncoded(into: Rollup, blob: Uint8Array): void {
  mapSink.buckets = into.buckets;
  decodeInto(blob, into, mapSink);
}

/** decodeInto's sink for a Rollup's Map of buckets (reused: decoding never interleaves). */
const mapSink = {
  buckets: new Map<number, number>(),
  add(i: number, c: number): void {
    this.buckets.set(i, (this.buckets.get(i) ?? 0) + c);
  },
};
