// The change detector's arithmetic: Student's t tail, the incomplete beta and
// Welch's test against SciPy; coarse cells and the window prefix against the
// raw values they summarise (brute force).
import { beforeAll, describe, expect, it } from "vitest";
import {
  CellBuilder,
  coarseOfValue,
  coarseUpper,
  coarsen,
  COARSE_STEPS,
  type Cell,
} from "../../shared/changes/cells.js";
import { pooledQuantile, Prefix } from "../../shared/changes/prefix.js";
import { incompleteBeta, studentTwoSided, welch, type Moments } from "../../shared/changes/student-t.js";
import { emptyRollup, record } from "../../shared/rollup.js";
import { encodeRollup } from "../../shared/rollup-codec.js";
import { mulberry32 as prng } from "../../shared/prng.js";
import { runPythonScript } from "../helpers/python.js";

interface Vectors {
  beta: { x: number; a: number; b: number; i: number }[];
  tails: { t: number; df: number; p: number }[];
  welch: { a: number[]; b: number[]; t: number; p: number }[];
}

let v: Vectors;
beforeAll(() => {
  v = runPythonScript("changes_vectors.py") as Vectors;
}, 60_000);

const moments = (xs: number[]): Moments => {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  return { n: xs.length, mean, variance: xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1) };
};

describe("Student's t and Welch against SciPy", () => {
  it("regularized incomplete beta", () => {
    for (const c of v.beta) expect(Math.abs(incompleteBeta(c.x, c.a, c.b) - c.i)).toBeLessThanOrEqual(1e-10);
  });
  it("two-sided t tail", () => {
    for (const c of v.tails)
      expect(Math.abs(studentTwoSided(c.t, c.df) - c.p)).toBeLessThanOrEqual(1e-10 * Math.max(1, c.p));
  });
  it("Welch's t-test: t and p", () => {
    for (const c of v.welch) {
      const r = welch(moments(c.a), moments(c.b));
      expect(r.t).toBeCloseTo(c.t, 9);
      expect(Math.abs(r.p - c.p)).toBeLessThanOrEqual(1e-9 * Math.max(1, c.p));
    }
  });
  it("Welch without variance: equal means p = 1, different p = 0", () => {
    const flat = { n: 5, mean: 0.5, variance: 0 };
    expect(welch(flat, flat).p).toBe(1);
    expect(welch(flat, { ...flat, mean: 0.6 }).p).toBe(0);
  });
});

/** Values (µs) of cells as a rollup would hold them: integers, log-normal with spikes. */
function randomCells(seed: number, n: number, perCell: number): { cells: Cell[]; values: number[][] } {
  const rand = prng(seed);
  const b = new CellBuilder();
  const cells: Cell[] = [];
  const values: number[][] = [];
  for (let i = 0; i < n; i++) {
    const vs: number[] = [];
    const count = 1 + Math.floor(rand() * perCell);
    for (let k = 0; k < count; k++) {
      const g = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
      let us = 20_000 * Math.exp(0.3 * g + (i > n / 2 ? 0.4 : 0));
      if (rand() < 0.02) us *= 10;
      vs.push(Math.max(1, Math.round(us)));
    }
    for (const us of vs) b.addBin(coarseOfValue(us), 1);
    cells.push(b.take(i * 300_000)!);
    values.push(vs);
  }
  return { cells, values };
}

/** The value below which a share q of sorted values lies (the continuous rank the prefix interpolates). */
const exactQuantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

describe("coarse cells and the window prefix against the raw values", () => {
  it("a value's coarse bin holds it: (2^((k−1)/16), 2^(k/16)]", () => {
    const rand = prng(7);
    for (let i = 0; i < 10_000; i++) {
      const us = Math.max(2, Math.round(2 ** (rand() * 30)));
      const k = coarseOfValue(us);
      expect(us).toBeLessThanOrEqual(coarseUpper(k) * (1 + 1e-12));
      expect(us).toBeGreaterThan(coarseUpper(k - 1) * (1 - 1e-12));
    }
  });

  it("cells decoded from stored rollups equal cells built from the values", () => {
    const { values } = randomCells(11, 30, 400);
    for (const vs of values) {
      const r = emptyRollup();
      for (const us of vs) record(r, us);
      const fromRollup = new CellBuilder();
      fromRollup.addEncoded(encodeRollup(r));
      const fromValues = new CellBuilder();
      for (const us of vs) fromValues.addBin(coarseOfValue(us), 1);
      expect(fromRollup.take(0)).toEqual(fromValues.take(0));
    }
  });

  it("window counts are exact, quantiles within a bin (4.4 %) of the exact ones", () => {
    const { cells, values } = randomCells(3, 60, 300);
    const prefix = new Prefix(cells);
    const rand = prng(5);
    const width = 2 ** (1 / COARSE_STEPS);
    for (let trial = 0; trial < 300; trial++) {
      const i = Math.floor(rand() * 59);
      const j = i + 1 + Math.floor(rand() * (60 - i - 1));
      const pooled = values
        .slice(i, j)
        .flat()
        .sort((a, b) => a - b);
      expect(prefix.count(i, j)).toBe(pooled.length);
      for (const q of [0.1, 0.5, 0.9, 0.99]) {
        const got = prefix.quantile(i, j, q)!;
        const exact = exactQuantile(pooled, q);
        expect(got / exact).toBeLessThanOrEqual(width * (1 + 1e-9));
        expect(got / exact).toBeGreaterThanOrEqual(1 / width / (1 + 1e-9));
      }
      // Above a value: exact but for the one bin the value falls in.
      const us = pooled[Math.floor(rand() * pooled.length)]!;
      const exactAbove = pooled.filter((x) => x > us).length;
      const k = coarseOfValue(us);
      const inBin = pooled.filter((x) => coarseOfValue(x) === k).length;
      expect(Math.abs(prefix.above(i, j, us) - exactAbove)).toBeLessThanOrEqual(inBin);
    }
  });

  it("pooledQuantile is the prefix's quantile over every cell", () => {
    const { cells } = randomCells(9, 40, 200);
    const prefix = new Prefix(cells);
    for (const q of [0.05, 0.5, 0.9, 0.99]) {
      const p = pooledQuantile(cells, q)!;
      expect(p.n).toBe(prefix.count(0, cells.length));
      expect(p.us).toBeCloseTo(prefix.quantile(0, cells.length, q)!, 6);
    }
    expect(pooledQuantile([], 0.5)).toBeNull();
  });

  it("coarsen adds 5-minute cells into their hour", () => {
    const { cells } = randomCells(13, 36, 100);
    const hours = coarsen({ cellMs: 300_000, cells }, 3_600_000);
    expect(hours.cells.map((c) => c.startMs)).toEqual([0, 3_600_000, 7_200_000]);
    for (const [h, c] of hours.cells.entries()) {
      const inHour = cells.slice(h * 12, h * 12 + 12);
      expect(c.count).toBe(inHour.reduce((s, x) => s + x.count, 0));
      expect(pooledQuantile([c], 0.9)!.us).toBeCloseTo(pooledQuantile(inHour, 0.9)!.us, 6);
    }
  });
});
