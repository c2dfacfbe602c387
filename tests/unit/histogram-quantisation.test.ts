// The histogram page's side of quantised latencies: the table's min and p10
// carry the clock step where it matters, the histogram spreads a series whose
// grid is coarser than its bins and says so, and leaves the others alone.
import { describe, expect, it } from "vitest";
import { quantisationNote } from "../../client/src/histogram/quantisation-note.js";
import { withStep } from "../../client/src/histogram/stats-table.js";
import { histogramColumns } from "../../client/src/histogram/transforms.js";
import { binEdge, type HistogramResponse, logBin } from "../../shared/contract/index.js";

describe("min and p10 with the clock's step", () => {
  it.each([
    [0, 1, "< 1.00 ms"],
    [0.5, 1, "< 1.00 ms"],
    [1, 1, "1.00 ± 1.00 ms"],
    [3, 0.1, "3.00 ± 0.100 ms"],
    [0.86, 0.02, "0.860 ± 0.020 ms"],
    [9.5, 0.1, "9.50 ± 0.100 ms"],
    [12.3, 0.1, "12.3 ms"],
    [12.3, 0.005, "12.3 ms"],
    [0.86, 0.005, "0.860 ms"],
    [12.3, null, "12.3 ms"],
    [null, 1, "–"],
  ] as const)("%s ms on a %s ms clock reads %j", (ms, step, want) => {
    expect(withStep(ms, step)).toBe(want);
  });
});

describe("a histogram of 1 ms-quantised latencies", () => {
  const BPD = 50;
  // xhr A at 2..40 ms rounded to whole ms; ping A (a baseline) at the same values, not page-timed.
  const values = Array.from({ length: 39 }, (_, i) => i + 2);
  const lo = logBin(2, BPD);
  const hi = logBin(40, BPD);
  const edges = Array.from({ length: hi - lo + 2 }, (_, k) => binEdge(lo + k, BPD));
  const counts = new Array<number>(hi - lo + 1).fill(0);
  for (const v of values) counts[logBin(v, BPD) - lo]! += 10;
  const h: HistogramResponse = {
    from: 0,
    to: 1,
    binsPerDecade: BPD,
    edges,
    series: [
      { method: "xhr", target: "A", count: 390, failures: 0, counts },
      { method: "ping", target: "A", count: 390, failures: 0, counts },
    ],
  };
  const steps = (method: string) => (method === "xhr" ? 1 : null);

  it("spreads the page-timed series over each step, keeping its total, and leaves the baseline as counted", () => {
    const [, xhr, ping] = histogramColumns(h, "count", steps) as [number[], number[], number[]];
    expect(ping.slice(0, counts.length)).toEqual(counts);
    expect(xhr.slice(0, counts.length).reduce((s, x) => s + x, 0)).toBeCloseTo(390, 9);
    // The comb: below ~21 ms most bins are empty; spread, none is.
    const below = counts.filter((_, i) => edges[i + 1]! < 20);
    expect(below.filter((c) => c === 0).length).toBeGreaterThan(below.length / 2);
    expect(xhr.slice(0, below.length).every((c) => c > 0)).toBe(true);
  });

  it("says which series are quantised coarser than the bins, and below what latency", () => {
    expect(quantisationNote(h, steps)).toBe(
      "XHR · A: latencies are multiples of 1.00 ms (the page's clock step), which makes a comb of the bins below 84.9 ms; drawn spread over each step.",
    );
    expect(quantisationNote(h, () => 0.005)).toBe("");
    expect(quantisationNote(h, () => null)).toBe("");
  });
});
