// The comparison's statistics against SciPy on shared vectors: the rank test
// to 1e-9, the normal tail to 1e-12, bootstrap intervals within the Monte
// Carlo error of two independent resamplings.
import { beforeAll, describe, expect, it } from "vitest";
import { bootstrapPercentileDiff } from "../../shared/forensics/bootstrap.js";
import { normalSf } from "../../shared/forensics/normal.js";
import { mannWhitneyU } from "../../shared/forensics/rank-test.js";
import { mulberry32 } from "../../shared/prng.js";
import { runPythonScript } from "../helpers/python.js";

interface Vectors {
  scipy: string;
  rank: { a: number[]; b: number[]; method: "exact" | "asymptotic"; u: number; p: number }[];
  bootstrap: { a: number[]; b: number[]; p: number; estimate: number; lo: number; hi: number; se: number }[];
  normal: { z: number; sf: number }[];
}

let v: Vectors;
beforeAll(() => {
  v = runPythonScript("forensics_vectors.py") as Vectors;
}, 60_000);

describe("statistics against SciPy", () => {
  it("normal tail probabilities", () => {
    for (const c of v.normal)
      expect(Math.abs(normalSf(c.z) - c.sf)).toBeLessThanOrEqual(1e-12 * Math.max(c.sf, 1e-300) + 1e-300);
  });

  it("Mann–Whitney U and its p-value, exact and tie-corrected asymptotic", () => {
    expect(v.rank.filter((c) => c.method === "exact").length).toBeGreaterThan(0);
    expect(v.rank.filter((c) => c.method === "asymptotic").length).toBeGreaterThan(0);
    for (const c of v.rank) {
      const r = mannWhitneyU(c.a, c.b);
      expect(r.method).toBe(c.method);
      expect(r.u).toBe(c.u);
      expect(Math.abs(r.p - c.p)).toBeLessThanOrEqual(1e-9 * Math.max(1, c.p));
    }
  });

  it("bootstrap intervals of median and p99 differences", () => {
    for (const c of v.bootstrap) {
      const r = bootstrapPercentileDiff(c.a, c.b, c.p, { random: mulberry32(7), resamples: 4000 });
      expect(r.estimate).toBeCloseTo(c.estimate, 9);
      // Two independent 4,000-resample runs: each bound wanders by a fraction of the standard error.
      const tolerance = 0.35 * c.se;
      expect(Math.abs(r.lo - c.lo)).toBeLessThanOrEqual(tolerance);
      expect(Math.abs(r.hi - c.hi)).toBeLessThanOrEqual(tolerance);
      expect(r.lo).toBeLessThanOrEqual(r.estimate + tolerance);
      expect(r.hi).toBeGreaterThanOrEqual(r.estimate - tolerance);
    }
  });
});
