// Rollup histograms against the brute force: every percentile the API shows
// within ±1 % of the exact nearest-rank value; count, min, max, sum exact;
// merging the rollups of two sets equals the rollup of their union.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bucketIndex,
  bucketUpper,
  bucketValue,
  countAtOrBelow,
  countsAtOrBelow,
  emptyRollup,
  mergeInto,
  quantile,
  quantiles,
  record,
  sortedBuckets,
  ROLLUP_RELATIVE_ERROR,
  type Rollup,
} from "../../shared/rollup.js";
import { DenseRollup } from "../../shared/dense-rollup.js";
import { encodeMerged, encodeRollup, mergeEncoded } from "../../shared/rollup-codec.js";
import { pushVarint } from "../../shared/varint.js";
import { percentileSorted } from "../../shared/stats.js";
import { mulberry32 } from "../../shared/prng.js";

const PERCENTILES = [0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100];

/**
 * A rollup in the legacy form files before store version 6 hold, written
 * here from its documented layout (shared/rollup-codec.ts): count, min, max,
 * sum, zero, the number of buckets, then per bucket its index delta from −1
 * and its count. The store no longer writes it; it must still read it.
 */
function encodeRollupLegacy(r: Rollup): Uint8Array {
  const out: number[] = [];
  const buckets = sortedBuckets(r);
  for (const v of [r.count, r.min ?? 0, r.max ?? 0, r.sum, r.zero, buckets.length]) pushVarint(out, v);
  let prev = -1;
  for (const [i, c] of buckets) {
    pushVarint(out, i - prev);
    pushVarint(out, c);
    prev = i;
  }
  return Uint8Array.from(out);
}

/** The compact form's first byte is its tag 0; the legacy form's is the count, never 0. */
const isCompactRollup = (blob: Uint8Array): boolean => blob[0] === 0;

function rollupOf(values: readonly number[]): Rollup {
  const r = emptyRollup();
  for (const v of values) record(r, v);
  return r;
}

function expectWithinBound(values: number[]): void {
  const sorted = Float64Array.from(values).sort();
  const r = rollupOf(values);
  expect(r.count).toBe(values.length);
  expect(r.min).toBe(sorted[0]);
  expect(r.max).toBe(sorted[sorted.length - 1]);
  expect(r.sum).toBe(values.reduce((a, b) => a + b, 0));
  const all = quantiles(r, PERCENTILES);
  for (const [k, p] of PERCENTILES.entries()) {
    const exact = percentileSorted(sorted, p)!;
    const got = quantile(r, p)!;
    // Several percentiles from one pass are the same as one at a time.
    expect(all[k], `p${p} from quantiles()`).toBe(got);
    if (exact === 0) expect(got).toBe(0);
    else
      expect(Math.abs(got - exact) / exact, `p${p}: exact ${exact}, rollup ${got}`).toBeLessThanOrEqual(
        ROLLUP_RELATIVE_ERROR,
      );
  }
}

const rand = mulberry32(7);
const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
const us = (ms: number) => Math.max(0, Math.round(ms * 1000));

describe("rollup percentiles against the exact nearest rank", () => {
  it("unimodal (log-normal around 12 ms)", () => {
    expectWithinBound(Array.from({ length: 50_000 }, () => us(12 * Math.exp(0.3 * gauss()))));
  });
  it("trimodal (0.2 ms, 15 ms, 400 ms)", () => {
    const modes = [0.2, 15, 400];
    expectWithinBound(Array.from({ length: 30_000 }, (_, i) => us(modes[i % 3]! * Math.exp(0.1 * gauss()))));
  });
  it("heavy tail (Pareto, α = 1.2)", () => {
    expectWithinBound(Array.from({ length: 50_000 }, () => us(1 / (1 - rand()) ** (1 / 1.2))));
  });
  it("constant", () => {
    expectWithinBound(new Array<number>(1000).fill(4321));
  });
  it("a single sample", () => {
    expectWithinBound([987_654]);
  });
  it("0 ms (loopback ping rounded to 0) among others", () => {
    expectWithinBound([...new Array<number>(300).fill(0), ...Array.from({ length: 700 }, () => us(0.05 + rand()))]);
    expectWithinBound(new Array<number>(50).fill(0));
  });
  it("timeouts in the tail (5 s timeout value on 2 %)", () => {
    expectWithinBound(
      Array.from({ length: 20_000 }, () => (rand() < 0.02 ? 5_000_000 : us(2 * Math.exp(0.5 * gauss())))),
    );
  });
  it("every small integer µs is its own bucket, so its quantiles are exact", () => {
    const values = Array.from({ length: 5000 }, () => 1 + Math.floor(rand() * 150));
    const sorted = Float64Array.from(values).sort();
    const r = rollupOf(values);
    for (const p of PERCENTILES) expect(quantile(r, p)).toBe(percentileSorted(sorted, p));
  });
  it("an empty rollup has no percentiles", () => {
    expect(quantile(emptyRollup(), 50)).toBeNull();
  });
});

describe("buckets", () => {
  it("bucket i holds (base^i, base^(i+1)], each no wider than 1 %", () => {
    for (let v = 1; v < 5_000_000; v = Math.ceil(v * 1.37) + 1) {
      const i = bucketIndex(v);
      expect(bucketUpper(i - 1)).toBeLessThan(v);
      expect(bucketUpper(i)).toBeGreaterThanOrEqual(v);
      expect(bucketUpper(i) / bucketUpper(i - 1) - 1).toBeLessThan(0.01);
    }
  });
  it("values at and beside every bucket edge up to 2^40 µs land in their bucket (the fast path trusts no edge)", () => {
    for (let i = 0; i < 40 * 2 ** 7; i++) {
      const u = bucketUpper(i);
      for (const v of [Math.floor(u), Math.floor(u) + 1, Math.ceil(u), Math.floor(u) - 1]) {
        if (v < 1) continue;
        const k = bucketIndex(v);
        expect(bucketUpper(k - 1), `${v} µs`).toBeLessThan(v);
        expect(bucketUpper(k), `${v} µs`).toBeGreaterThanOrEqual(v);
      }
    }
    // Powers of two are edges exactly: 2^k is the top of bucket 128k − 1.
    for (let k = 0; k < 40; k++) expect(bucketIndex(2 ** k)).toBe(128 * k - 1);
  });
  it("a bucket's value lies in the bucket, the same when asked again (cached) and past the cache", () => {
    for (let i = -1; i < 4200; i++) {
      const v = bucketValue(i);
      expect(v, `bucket ${i}`).toBeGreaterThan(bucketUpper(i - 1));
      expect(v, `bucket ${i}`).toBeLessThanOrEqual(bucketUpper(i));
      expect(bucketValue(i)).toBe(v);
    }
  });
  it("encode → decode gives the same rollup", () => {
    const r = rollupOf(Array.from({ length: 5000 }, () => us(30 * Math.exp(gauss()))));
    const back = emptyRollup();
    mergeEncoded(back, encodeRollup(r));
    expect(back).toEqual(r);
  });
});

describe("several percentiles in one pass", () => {
  it("equal the one-at-a-time walk over the sorted buckets, in any order of p", () => {
    const value = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 60_000_000 }));
    const p = fc.oneof(
      fc.constantFrom(0.1, 1, 10, 50, 90, 99, 99.9, 100),
      fc.double({ min: 0.001, max: 100, noNaN: true }),
    );
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 300 }),
        fc.array(p, { minLength: 1, maxLength: 8 }),
        (values, ps) => {
          const r = rollupOf(values);
          const pairs = sortedBuckets(r);
          expect(quantiles(r, ps)).toEqual(ps.map((q) => quantile(r, q, pairs)));
        },
      ),
      { numRuns: 300 },
    );
  });
  it("an empty rollup gives null for each", () => {
    expect(quantiles(emptyRollup(), [50, 99])).toEqual([null, null]);
  });
});

describe("merging", () => {
  const latencyUs = fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 200 }),
    fc.integer({ min: 1, max: 86_400_000_000 }),
  );
  it("merge(rollup(A), rollup(B)) equals rollup(A ∪ B)", () => {
    fc.assert(
      fc.property(fc.array(latencyUs, { maxLength: 300 }), fc.array(latencyUs, { maxLength: 300 }), (a, b) => {
        const merged = rollupOf(a);
        mergeInto(merged, rollupOf(b));
        const union = rollupOf([...a, ...b]);
        expect(merged.count).toBe(union.count);
        expect(merged.min).toBe(union.min);
        expect(merged.max).toBe(union.max);
        expect(merged.sum).toBe(union.sum);
        expect(merged.zero).toBe(union.zero);
        expect(merged.buckets).toEqual(union.buckets);
        for (const p of PERCENTILES) expect(quantile(merged, p)).toBe(quantile(union, p));
      }),
      { numRuns: 300 },
    );
  });
  it("merging through the stored encoding loses nothing", () => {
    fc.assert(
      fc.property(fc.array(latencyUs, { minLength: 1, maxLength: 200 }), (a) => {
        const half = Math.floor(a.length / 2);
        const back = rollupOf(a.slice(0, half));
        mergeEncoded(back, encodeRollup(rollupOf(a.slice(half))));
        expect(back).toEqual(rollupOf(a));
      }),
    );
  });
  it("encodeMerged(A, stored B) is the bytes of rollup(A ∪ B), B stored in either form or not at all, A unchanged", () => {
    fc.assert(
      fc.property(
        fc.array(latencyUs, { maxLength: 80 }),
        fc.array(latencyUs, { maxLength: 300 }),
        fc.constantFrom("compact", "legacy", "none"),
        (a, b, form) => {
          const mine = rollupOf(a);
          const before = { ...mine, buckets: new Map(mine.buckets) };
          const stored =
            form === "none" || b.length === 0
              ? null
              : form === "compact"
                ? encodeRollup(rollupOf(b))
                : encodeRollupLegacy(rollupOf(b));
          const union = stored === null ? a : [...a, ...b];
          const got = encodeMerged(mine, stored);
          expect(got === null ? null : [...got]).toEqual(
            union.length === 0 ? null : [...encodeRollup(rollupOf(union))],
          );
          expect(mine).toEqual(before);
        },
      ),
      { numRuns: 400 },
    );
  });
  it("a dense accumulator of many stored and in-memory rollups equals the rollup of their union, buckets ascending", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(latencyUs, { maxLength: 60 }), { minLength: 1, maxLength: 12 }),
        fc.array(latencyUs, { maxLength: 60 }),
        (parts, edge) => {
          const dense = new DenseRollup();
          for (const part of parts) if (part.length > 0) dense.addEncoded(encodeRollup(rollupOf(part)));
          dense.addRollup(rollupOf(edge));
          const got = dense.toRollup();
          const union = rollupOf([...parts.flat(), ...edge]);
          expect({ ...got, buckets: [...got.buckets].sort((x, y) => x[0] - y[0]) }).toEqual({
            ...union,
            buckets: [...union.buckets].sort((x, y) => x[0] - y[0]),
          });
          const keys = [...got.buckets.keys()];
          expect(keys).toEqual([...keys].sort((x, y) => x - y));
        },
      ),
      { numRuns: 300 },
    );
  });
  it("a cut-off stored rollup fails the merge (a query then errors) instead of reading past its end, in either form", () => {
    const r = rollupOf([0, 5, 800, 800, 12_000, 3_000_000]);
    for (const blob of [encodeRollup(r), encodeRollupLegacy(r)])
      for (let cut = 1; cut < blob.length; cut++)
        expect(() => new DenseRollup().addEncoded(blob.subarray(0, cut))).toThrow("truncated rollup");
  });
});

describe("the stored forms", () => {
  const latencyUs = fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 200 }),
    fc.integer({ min: 1, max: 86_400_000_000 }),
  );
  const decoded = (blob: Uint8Array) => {
    const back = emptyRollup();
    mergeEncoded(back, blob);
    const dense = new DenseRollup();
    dense.addEncoded(blob);
    return { back, dense: dense.toRollup() };
  };
  /** Buckets in ascending order, so Maps filled in different orders compare equal. */
  const ordered = (r: Rollup) => ({ ...r, buckets: [...r.buckets].sort((x, y) => x[0] - y[0]) });

  it.each([
    { form: "compact", encode: encodeRollup, compact: true },
    { form: "legacy (files before store version 6)", encode: encodeRollupLegacy, compact: false },
  ])("a recorded rollup in the $form form: both decoders give it back exactly", ({ encode, compact }) => {
    fc.assert(
      fc.property(fc.array(latencyUs, { minLength: 1, maxLength: 300 }), (values) => {
        const r = rollupOf(values);
        const blob = encode(r);
        expect(isCompactRollup(blob)).toBe(compact);
        const { back, dense } = decoded(blob);
        expect(ordered(back)).toEqual(ordered(r));
        expect(ordered(dense)).toEqual(ordered(r));
      }),
      { numRuns: 400 },
    );
  });
  it("the edge shapes: one value, only zeros, zeros and one bucket, one bucket, two adjacent buckets, counts past a varint byte", () => {
    const shapes = [
      [7],
      [0],
      [0, 0, 0],
      [0, 0, 9],
      [1_000, 1_001, 1_002],
      [1_000, 1_000, 1_000],
      [1_000, 2_000],
      [0, 1, 2],
      [5, 5_000_000_000],
    ];
    shapes.push(Array.from({ length: 300 }, (_, k) => 1_000 + (k % 3) * 50));
    for (const values of shapes) {
      const r = rollupOf(values);
      const blob = encodeRollup(r);
      expect(isCompactRollup(blob)).toBe(true);
      expect(ordered(decoded(blob).back)).toEqual(ordered(r));
    }
  });
  it("a rollup whose exact fields disagree with its buckets is stored in the legacy form and read back unchanged", () => {
    const r = rollupOf([1_000, 2_000, 3_000]);
    r.min = 500; // min not in the first bucket: the compact form would imply the wrong one
    const blob = encodeRollup(r);
    expect(isCompactRollup(blob)).toBe(false);
    expect(ordered(decoded(blob).back)).toEqual(ordered(r));
  });
  it("sparse rollups, as a 5-minute row of one client holds, take under two thirds of the legacy bytes", () => {
    const random = mulberry32(13);
    let compact = 0;
    let legacy = 0;
    for (let k = 0; k < 2_000; k++) {
      const r = rollupOf(
        Array.from({ length: 1 + Math.floor(random() * 12) }, () => Math.round(3_000 * Math.exp(random()))),
      );
      compact += encodeRollup(r).length;
      legacy += encodeRollupLegacy(r).length;
    }
    expect(compact / legacy).toBeLessThan(2 / 3);
  });
});

/** Exact count of values ≤ bound. */
const atOrBelow = (values: readonly number[], bound: number) => values.reduce((n, v) => n + (v <= bound ? 1 : 0), 0);

describe("counts at or below a bound (Prometheus' le, /metrics)", () => {
  const LE_US = [
    500, 1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000,
  ];

  it("lies between the exact counts at the edges of the bucket the bound falls in (0.54 % apart)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 6_000_000 }), { maxLength: 400 }),
        fc.constantFrom(...LE_US),
        (values, le) => {
          const r = rollupOf(values);
          const got = countAtOrBelow(r, le);
          const i = bucketIndex(le);
          const lower = atOrBelow(values, Math.floor(bucketUpper(i - 1)));
          const upper = atOrBelow(values, Math.floor(bucketUpper(i)));
          expect(got).toBeGreaterThanOrEqual(lower);
          expect(got).toBeLessThanOrEqual(upper);
          // Off by at most the samples of that one bucket; exact when it holds none.
          expect(Math.abs(got - atOrBelow(values, le))).toBeLessThanOrEqual(upper - lower);
        },
      ),
      { numRuns: 300 },
    );
  });

  /** The single-bound walk /metrics used before countsAtOrBelow, written out as the reference. */
  const oneBound = (r: Rollup, us: number): number => {
    if (us < 0) return 0;
    let n = r.zero;
    for (const [i, c] of sortedBuckets(r)) {
      const lo = Math.floor(bucketUpper(i - 1)) + 1;
      const hi = Math.floor(bucketUpper(i));
      if (hi <= us) n += c;
      else if (lo <= us) n += Math.round((c * (Math.floor(us) - lo + 1)) / (hi - lo + 1));
      else break;
    }
    return n;
  };

  it("answers many bounds in one walk, in any order, as the single-bound walk answers each", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 6_000_000 }), { maxLength: 400 }),
        fc.array(fc.integer({ min: -5, max: 7_000_000 }), { maxLength: 20 }),
        (values, bounds) => {
          const r = rollupOf(values);
          const all = countsAtOrBelow(r, bounds);
          expect(all).toEqual(bounds.map((le) => oneBound(r, le)));
          expect(bounds.map((le) => countAtOrBelow(r, le))).toEqual(all);
          bounds.forEach((le, k) => {
            // Against the samples themselves: between the exact counts at the edges of le's bucket.
            if (le < 1) return expect(all[k]).toBe(le < 0 ? 0 : atOrBelow(values, le));
            const i = bucketIndex(le);
            expect(all[k]).toBeGreaterThanOrEqual(atOrBelow(values, Math.floor(bucketUpper(i - 1))));
            expect(all[k]).toBeLessThanOrEqual(atOrBelow(values, Math.floor(bucketUpper(i))));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is exact when no value shares the bound's bucket, and the whole count at the top", () => {
    const values = [0, 0, 3, 420, 1200, 1200, 9000, 30_000, 2_000_000];
    const r = rollupOf(values);
    for (const le of LE_US) expect(countAtOrBelow(r, le)).toBe(atOrBelow(values, le));
    expect(countAtOrBelow(r, 10_000_000)).toBe(values.length);
    expect(countAtOrBelow(r, -1)).toBe(0);
  });

  it("an evenly spread bucket is split in proportion", () => {
    // Every integer of the bucket holding 100,000 µs, 10 samples each.
    const i = bucketIndex(100_000);
    const values: number[] = [];
    for (let v = Math.floor(bucketUpper(i - 1)) + 1; v <= Math.floor(bucketUpper(i)); v++)
      for (let k = 0; k < 10; k++) values.push(v);
    expect(countAtOrBelow(rollupOf(values), 100_000)).toBe(atOrBelow(values, 100_000));
  });

  it("never decreases as values are added (a counter across scrapes)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 300 }), (values) => {
        const r = emptyRollup();
        const prev = LE_US.map(() => 0);
        for (const v of values) {
          record(r, v);
          LE_US.forEach((le, k) => {
            const now = countAtOrBelow(r, le);
            expect(now).toBeGreaterThanOrEqual(prev[k]!);
            prev[k] = now;
          });
        }
      }),
      { numRuns: 100 },
    );
  });

  it("on a month-like latency mix the error is a small share of the count", () => {
    const values = Array.from({ length: 200_000 }, () => us(20 * Math.exp(0.8 * gauss())));
    const r = rollupOf(values);
    for (const le of LE_US) {
      const exact = atOrBelow(values, le);
      // Density near a bound times 0.54 % of it: a fraction of a per cent of all samples.
      expect(Math.abs(countAtOrBelow(r, le) - exact) / values.length, `le ${le} µs`).toBeLessThan(0.001);
    }
  });
});
