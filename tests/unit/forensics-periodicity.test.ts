// Periodicity: a planted 7-minute oscillation in noisy bucketed p99 is found
// (period and strength), white noise reports none; aligned tails are seen
// when two series share an oscillation and not when they do not.
import { describe, expect, it } from "vitest";
import { alignedTails, detectPeriod, fisherG } from "../../shared/forensics/periodicity.js";
import { mulberry32 } from "../../shared/prng.js";

const BUCKET_MS = 10_000;
const PERIOD_MS = 7 * 60_000;

/** Approximately normal noise (sum of 12 uniforms − 6). */
function gauss(r: () => number): number {
  let s = 0;
  for (let i = 0; i < 12; i++) s += r();
  return s - 6;
}

/** Three hours of 10 s buckets: p99 around 80 ms, a 7-minute wave of ±amplitude, noise of sd `noise`, some empty buckets. */
function series(seed: number, amplitude: number, noise: number, phase = 0): (number | null)[] {
  const r = mulberry32(seed);
  const out: (number | null)[] = [];
  for (let i = 0; i < 1080; i++) {
    if (r() < 0.03) {
      out.push(null);
      continue;
    }
    const t = i * BUCKET_MS;
    out.push(80 + amplitude * Math.sin((2 * Math.PI * t) / PERIOD_MS + phase) + noise * gauss(r));
  }
  return out;
}

describe("periodicity", () => {
  it("finds a planted 7-minute period under noise as strong as the wave", () => {
    for (const seed of [1, 2, 3]) {
      const p = detectPeriod(series(seed, 10, 10), BUCKET_MS);
      expect(p.periodMs).not.toBeNull();
      expect(Math.abs(p.periodMs! - PERIOD_MS)).toBeLessThan(0.03 * PERIOD_MS);
      expect(p.p).toBeLessThan(1e-6);
      expect(p.autocorrelation!).toBeGreaterThan(0.2);
      expect(p.strength).toBeGreaterThan(0.1);
      // sin peaks a quarter period in: the first peak is found there, within a bucket or two.
      expect(Math.abs(p.firstPeakMs! - PERIOD_MS / 4)).toBeLessThan(3 * BUCKET_MS);
    }
  });

  it("reports no period in white noise (false alarms at most at the test's level)", () => {
    let alarms = 0;
    for (let seed = 100; seed < 140; seed++)
      if (detectPeriod(series(seed, 0, 10), BUCKET_MS).periodMs !== null) alarms++;
    // The level is 1 %: of 40 noise series, more than 3 alarms would be a broken test.
    expect(alarms).toBeLessThanOrEqual(3);
  });

  it("needs enough buckets", () => {
    expect(detectPeriod([1, 2, 3, null, 5], BUCKET_MS).periodMs).toBeNull();
  });

  it("Fisher's g p-value falls as g rises and is 1 at g = 1/m", () => {
    expect(fisherG(1 / 50, 50)).toBeCloseTo(1, 6);
    expect(fisherG(0.2, 50)).toBeLessThan(fisherG(0.1, 50));
    // First term of the series: m(1 − g)^(m−1) dominates for large g.
    expect(fisherG(0.5, 50)).toBeCloseTo(50 * 0.5 ** 49, 12);
  });
});

describe("aligned tails", () => {
  it("two series sharing a wave move together; independent noise does not", () => {
    const a = series(11, 10, 5);
    const b = series(12, 10, 5);
    const together = alignedTails(a, b);
    expect(together.aligned).toBe(true);
    expect(together.r).toBeGreaterThan(0.5);
    const apart = alignedTails(series(13, 0, 10), series(14, 0, 10));
    expect(apart.aligned).toBe(false);
    expect(Math.abs(apart.r)).toBeLessThan(0.2);
  });

  it("opposite phases are not aligned", () => {
    const r = alignedTails(series(21, 10, 3), series(22, 10, 3, Math.PI));
    expect(r.r).toBeLessThan(-0.5);
    expect(r.aligned).toBe(false);
  });
});
