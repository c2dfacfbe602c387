// Spreading quantised latencies over their clock step (shared/quantisation.ts):
// checked against brute force, the histogram of the unrounded values.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMB_STEPS_MAX, coarserThanBins, quantisedBelowMs, spreadQuantised } from "../../shared/quantisation.js";
import { binEdge, logBin } from "../../shared/contract/charts.js";
import { mulberry32 } from "../../shared/prng.js";

const BINS_PER_DECADE = 50;

/** Log-bin counts of `values` as the server bins them, over the bins from lo to hi. */
function histogram(values: number[], lo: number, hi: number): { edges: number[]; counts: number[] } {
  const edges: number[] = [];
  for (let k = lo; k <= hi + 1; k++) edges.push(binEdge(k, BINS_PER_DECADE));
  const counts = new Array<number>(hi - lo + 1).fill(0);
  for (const v of values) counts[logBin(v, BINS_PER_DECADE) - lo]!++;
  return { edges, counts };
}

/** Sum of |a − b| over the bins, as a share of the total. */
const l1 = (a: number[], b: number[]) =>
  a.reduce((s, x, i) => s + Math.abs(x - b[i]!), 0) / b.reduce((s, x) => s + x, 0);

describe("quantised latencies on log bins", () => {
  it("bins are narrower than COMB_STEPS_MAX steps below COMB_STEPS_MAX × step / (10^(1/bins per decade) − 1)", () => {
    const below = quantisedBelowMs(1, BINS_PER_DECADE);
    const at = logBin(below * 0.9, BINS_PER_DECADE);
    expect(binEdge(at + 1, BINS_PER_DECADE) - binEdge(at, BINS_PER_DECADE)).toBeLessThan(COMB_STEPS_MAX);
    const above = logBin(below * 1.1, BINS_PER_DECADE);
    expect(binEdge(above + 1, BINS_PER_DECADE) - binEdge(above, BINS_PER_DECADE)).toBeGreaterThan(COMB_STEPS_MAX);
  });

  for (const stepMs of [1, 0.1, 0.02]) {
    it(`latencies rounded to ${stepMs} ms draw as the unrounded ones do, not as a comb`, () => {
      const rnd = mulberry32(7);
      // Log-normal latencies around 20 steps: many bins narrower than the step.
      const exact = Array.from({ length: 50_000 }, () => {
        const g = Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
        return 20 * stepMs * Math.exp(0.4 * g);
      });
      const rounded = exact.map((v) => Math.max(stepMs, Math.round(v / stepMs) * stepMs));
      const all = [...exact, ...rounded];
      const lo = Math.min(...all.map((v) => logBin(v, BINS_PER_DECADE)));
      const hi = Math.max(...all.map((v) => logBin(v, BINS_PER_DECADE)));
      const truth = histogram(exact, lo, hi);
      const comb = histogram(rounded, lo, hi);
      expect(coarserThanBins(comb.edges, comb.counts, stepMs)).toBe(true);
      const spread = spreadQuantised(comb.edges, comb.counts, stepMs);
      expect(spread.reduce((s, x) => s + x, 0)).toBeCloseTo(rounded.length, 6);
      // The comb is far from the truth; spread over the step, close to it.
      expect(l1(comb.counts, truth.counts)).toBeGreaterThan(0.3);
      expect(l1(spread, truth.counts)).toBeLessThan(0.1);
    });
  }

  it("leaves counts alone where every non-empty bin is wider than COMB_STEPS_MAX steps", () => {
    const { edges, counts } = histogram([10, 12, 15, 30, 31], logBin(10, BINS_PER_DECADE), logBin(31, BINS_PER_DECADE));
    expect(coarserThanBins(edges, counts, 0.005)).toBe(false);
    expect(spreadQuantised(edges, counts, 0.005)).toEqual(counts);
    expect(spreadQuantised(edges, counts, 0)).toEqual(counts);
  });

  it("keeps the total and puts nothing outside the bins, for any counts and step", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -150, max: 150 }),
        fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 120 }),
        fc.constantFrom(0.005, 0.02, 0.1, 1, 7),
        (lo, counts, step) => {
          const edges = Array.from({ length: counts.length + 1 }, (_, k) => binEdge(lo + k, BINS_PER_DECADE));
          const out = spreadQuantised(edges, counts, step);
          expect(out).toHaveLength(counts.length);
          expect(out.every((x) => x >= 0)).toBe(true);
          const total = counts.reduce((s, x) => s + x, 0);
          expect(Math.abs(out.reduce((s, x) => s + x, 0) - total)).toBeLessThanOrEqual(1e-6 * Math.max(1, total));
        },
      ),
    );
  });
});
