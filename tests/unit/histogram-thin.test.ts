// A percentile needs about 10 samples beyond it to say anything about the
// tail (shared/stats.ts samplesNeededFor); the table and the CDF mark the
// ones that do not.
import { describe, expect, it } from "vitest";
import { isThin } from "../../client/src/histogram/transforms.js";
import { samplesNeededFor } from "../../shared/stats.js";

describe("thin percentile marks", () => {
  it("p99.9 from 500 samples is thin; from 10 000 it is not", () => {
    expect(isThin(99.9, 500)).toBe(true);
    expect(isThin(99.9, 9_999)).toBe(true);
    expect(isThin(99.9, 10_000)).toBe(false);
  });

  it("each table percentile switches exactly at the shared threshold", () => {
    for (const [p, needed] of [
      [10, 12],
      [50, 20],
      [90, 100],
      [99, 1000],
      [99.9, 10_000],
      [99.99, 100_000],
    ] as const) {
      expect(samplesNeededFor(p), `p${p}`).toBe(needed);
      expect(isThin(p, needed - 1), `p${p} at ${needed - 1}`).toBe(true);
      expect(isThin(p, needed), `p${p} at ${needed}`).toBe(false);
    }
  });

  it("an empty series marks every percentile", () => {
    expect(isThin(50, 0)).toBe(true);
  });
});
