// Percentiles are the product: check them against the plainest possible
// reference on random data whose tail we planted ourselves.
import { describe, expect, it } from "vitest";
import { nearestRank, percentileSorted, samplesNeededFor, summarize } from "../../shared/stats.js";
import { prng } from "../helpers/prng.js";

/** The textbook definition, written independently: smallest value with at least p% of values ≤ it. */
function bruteForcePercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  for (const v of sorted) {
    const atOrBelow = sorted.filter((x) => x <= v).length;
    if (atOrBelow * 100 >= p * sorted.length - 1e-7) return v;
  }
  return sorted[sorted.length - 1]!;
}

function plantedTail(n: number, seed: number): number[] {
  const r = prng(seed);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const base = 20 + r() * 10; // body: 20-30 ms
    const u = r();
    // 1% at ~10x, 0.1% at ~100x: the tail a median hides.
    out.push(u < 0.001 ? base * 100 : u < 0.011 ? base * 10 : base);
  }
  return out;
}

describe("nearest-rank percentiles", () => {
  it("ranks the classic small examples", () => {
    expect(nearestRank(50, 4)).toBe(2);
    expect(nearestRank(99.9, 1000)).toBe(999);
    expect(nearestRank(100, 7)).toBe(7);
    expect(nearestRank(0.0001, 7)).toBe(1);
    expect(percentileSorted([15, 20, 35, 40, 50], 30)).toBe(20);
    expect(percentileSorted([15, 20, 35, 40, 50], 40)).toBe(20);
    expect(percentileSorted([15, 20, 35, 40, 50], 50)).toBe(35);
    expect(percentileSorted([], 50)).toBeNull();
  });

  for (const [n, seed] of [
    [1, 1],
    [2, 2],
    [10, 3],
    [999, 4],
    [1000, 5],
    [1001, 6],
    [4321, 7],
  ] as const) {
    it(`matches the brute-force reference on ${n} samples with a planted tail`, () => {
      const values = plantedTail(n, seed);
      const s = summarize(values);
      expect(s.count).toBe(n);
      expect(s.min).toBe(Math.min(...values));
      expect(s.max).toBe(Math.max(...values));
      expect(s.mean).toBeCloseTo(values.reduce((a, b) => a + b, 0) / n, 9);
      expect(s.p10).toBe(bruteForcePercentile(values, 10));
      expect(s.p50).toBe(bruteForcePercentile(values, 50));
      expect(s.p90).toBe(bruteForcePercentile(values, 90));
      expect(s.p99).toBe(bruteForcePercentile(values, 99));
      expect(s.p999).toBe(bruteForcePercentile(values, 99.9));
    });
  }

  it("sees the planted tail: p99 and p99.9 land in it, the median does not", () => {
    const s = summarize(plantedTail(20_000, 42));
    expect(s.p50!).toBeLessThan(30);
    expect(s.p90!).toBeLessThan(30);
    expect(s.p99!).toBeGreaterThan(150);
    expect(s.p999!).toBeGreaterThan(1500);
  });

  it("gives nulls, not zeros, for an empty population", () => {
    expect(summarize([])).toEqual({ count: 0, min: null, p10: null, p50: null, mean: null, p90: null, p99: null, p999: null, max: null });
  });

  it("is exact on ties and does not interpolate", () => {
    const s = summarize([5, 5, 5, 5, 100]);
    expect(s.p50).toBe(5);
    expect(s.p90).toBe(100);
    expect([5, 100]).toContain(s.p99);
  });

  it("says how many samples a percentile needs before it means anything", () => {
    expect(samplesNeededFor(50)).toBe(20);
    expect(samplesNeededFor(99)).toBe(1000);
    expect(samplesNeededFor(99.9)).toBe(10_000);
  });
});
