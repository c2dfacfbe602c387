// Percentiles are the product: check them against the plainest possible
// reference on random data whose tail we planted ourselves.
import { describe, expect, it } from "vitest";
import { nearestRank, percentileSorted, samplesNeededFor, summarize } from "../../shared/stats.js";
import { mulberry32 } from "../../shared/prng.js";

/** The textbook definition, written independently: smallest value with at least p% of values ≤ it. */
function bruteForcePercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  for (const v of sorted) {
    const atOrBelow = sorted.filter((x) => x <= v).length;
    if (atOrBelow * 100 >= p * sorted.length - 1e-7) return v;
  }
  return sorted[sorted.length - 1]!;
}

/** Share of values planted at ~100× the body: three times the 0.1 % above p99.9, so p99.9 lands in it for any seed. */
const FAR_TAIL_SHARE = 0.003;
/** Share planted at ~10× the body: with the far tail, twice the 1 % above p99. */
const NEAR_TAIL_SHARE = 0.017;

function plantedTail(n: number, seed: number): number[] {
  const r = mulberry32(seed);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const base = 20 + r() * 10; // body: 20-30 ms
    const u = r();
    // The tail a median hides: 1.7 % at ~10x (200-300 ms), 0.3 % at ~100x (2-3 s).
    out.push(u < FAR_TAIL_SHARE ? base * 100 : u < FAR_TAIL_SHARE + NEAR_TAIL_SHARE ? base * 10 : base);
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

  // Far from the boundary for every seed: 0.3 % planted where p99.9 needs
  // 0.1 % (60 expected of 20,000 against 20 needed, 5 standard deviations).
  it("sees the planted tail for every one of 200 seeds: p99 and p99.9 land in it, the median does not", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const s = summarize(plantedTail(20_000, seed));
      expect(s.p50!, `seed ${seed}`).toBeLessThan(30);
      expect(s.p90!, `seed ${seed}`).toBeLessThan(30);
      expect(s.p99!, `seed ${seed}`).toBeGreaterThan(150);
      expect(s.p999!, `seed ${seed}`).toBeGreaterThan(1500);
    }
  });

  it("gives nulls, not zeros, for an empty population", () => {
    expect(summarize([])).toEqual({
      count: 0,
      min: null,
      p10: null,
      p50: null,
      mean: null,
      p90: null,
      p99: null,
      p999: null,
      max: null,
    });
  });

  it("is exact on ties and does not interpolate", () => {
    // Nearest ranks among 5: p10 → 1, p50 → 3, p80 → 4, p90 → 5, p99 → 5.
    // Linear interpolation between ranks would give p80 24, p90 62, p99 96.2.
    const values = [5, 5, 5, 5, 100];
    const s = summarize(values);
    expect(s.p10).toBe(5);
    expect(s.p50).toBe(5);
    expect(percentileSorted(values, 80)).toBe(5);
    expect(s.p90).toBe(100);
    expect(s.p99).toBe(100);
    expect(s.p999).toBe(100);
    for (const p of [10, 50, 80, 90, 99, 99.9])
      expect(percentileSorted(values, p), `p${p}`).toBe(bruteForcePercentile(values, p));
  });

  it("says how many samples a percentile needs before it means anything", () => {
    expect(samplesNeededFor(50)).toBe(20);
    expect(samplesNeededFor(99)).toBe(1000);
    expect(samplesNeededFor(99.9)).toBe(10_000);
  });
});
