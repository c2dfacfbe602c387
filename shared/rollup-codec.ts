// The stored form of a rollup (shared/rollup.ts): one BLOB of unsigned
// LEB128 varints, written compact, read in either form, merged with a stored
// one without decoding it into a Map (the writer's and the readers' hot paths).
import { bucketIndex, fillSorted, mergeInto, type Rollup } from "./rollup.js";

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
export interface BucketSink {
  add(index: number, n: number): void;
}

/**
 * Decodes a stored rollup of either form: its exact fields are added to
 * `into`, each bucket to `sink`, one method call each: a month's stats merge
 * hundreds of kilobytes of these per query, so there is no closure and no
 * object per bucket.
 */
export function decodeInto(
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

/** How many values a stored rollup holds (either form), read from its header alone: a count needs no buckets. */
export function encodedCount(blob: Uint8Array): number {
  cursor.blob = blob;
  cursor.pos = blob[0] === COMPACT_TAG ? 1 : 0;
  return varint();
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
