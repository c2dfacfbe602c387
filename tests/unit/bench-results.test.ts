// docs/performance.md's tables are docs/bench-results.json rendered, never
// typed: the committed page (and docs/performance-figures.md, every figure)
// must be exactly what the renderer makes of the committed results. And a run files its records the way the runner says:
// one benchmark replaces its own record, a whole run replaces them all.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { BENCHMARKS } from "../../bench/benchmarks.js";
import { FIGURES_PATH, PERFORMANCE_PATH, renderFigures, renderPerformance } from "../../bench/render.js";
import type { BenchRow } from "../../bench/result.js";
import { type BenchRecord, readResults, recordRun, type Results } from "../../bench/results.js";

const row = (figure: string, value: number): BenchRow => ({
  figure,
  value,
  baseline: 2,
  goal: "≤ 3",
  pass: value <= 3,
});

const record = (at: string, rows: BenchRow[]): BenchRecord => ({
  at,
  commit: "abc1234",
  seconds: 12.4,
  machine: { cpu: "Test CPU", cores: 2, memoryGb: 8, os: "Linux 6", node: "v20.19.0", loadAverage: 0.5 },
  about: "What it measures.",
  rows,
});

const MD = [
  "# Page",
  "<!-- bench:machine -->",
  "<!-- /bench:machine -->",
  "<!-- bench:full -->",
  "stale text",
  "<!-- /bench:full -->",
  "<!-- bench:long -->",
  "<!-- /bench:long -->",
  "",
].join("\n");

describe("docs/performance.md", () => {
  it("is the committed results rendered, to the byte", () => {
    const md = fs.readFileSync(PERFORMANCE_PATH, "utf8");
    expect(renderPerformance(md, readResults(), Object.keys(BENCHMARKS))).toBe(md);
    expect(renderFigures(readResults(), Object.keys(BENCHMARKS))).toBe(fs.readFileSync(FIGURES_PATH, "utf8"));
  });
});

describe("rendering results", () => {
  const empty: Results = { version: 1, full: {}, long: {}, wholeRuns: {} };

  it("replaces each marked region and keeps the text around it", () => {
    const results = recordRun(empty, "full", { b: record("2026-01-02T03:04:05.000Z", [row("x (ms)", 4)]) }, null);
    const out = renderPerformance(MD, results, ["a", "b"]);
    expect(out.startsWith("# Page\n<!-- bench:machine -->\n- 2 × Test CPU, 8 GB, Linux 6, Node 20.19.0\n")).toBe(true);
    expect(out).not.toContain("stale text");
    expect(out).toContain("| **b** (12 s): What it measures. Ran 2026-01-02 03:04 UTC, commit abc1234. ||||||");
    expect(out).toContain("| x (ms) | 4.00 | 2.00 | 2.00× | ≤ 3 | FAIL |");
    expect(out).toContain("No whole `npm run bench -- long` recorded yet");
    // Rendering is idempotent: the rendered page renders to itself.
    expect(renderPerformance(out, results, ["a", "b"])).toBe(out);
  });

  it("shows the figures with a goal, counts the rest and lists every figure on the figures page", () => {
    const rows = [
      row("judged (ms)", 1),
      { ...row("same goal (ms)", 2) },
      { ...row("reported (ms)", 5), goal: "(reported)", pass: null },
      { ...row("reported, why (ms)", 6), goal: "(reported: what it costs)", pass: null },
    ];
    const results = recordRun(empty, "full", { b: record("2026-01-02T03:04:05.000Z", rows) }, null);
    const out = renderPerformance(MD, results, ["b"]);
    expect(out).toContain(
      "| **b** (12 s): What it measures. Ran 2026-01-02 03:04 UTC, commit abc1234. [+2 reported](performance-figures.md) ||||||",
    );
    expect(out).toContain("| judged (ms) | 1.00 | 2.00 | 0.500× | ≤ 3 | pass |");
    // A goal the row above has is written 〃.
    expect(out).toContain("| same goal (ms) | 2.00 | 2.00 | 1.00× | 〃 | pass |");
    expect(out).not.toContain("reported (ms)");
    const figures = renderFigures(results, ["b"]);
    expect(figures).toContain("| **b** (12 s): What it measures. Ran 2026-01-02 03:04 UTC, commit abc1234. ||||||");
    expect(figures).toContain("| reported (ms) | 5.00 | 2.00 | 2.50× |  | – |");
    expect(figures).toContain("| reported, why (ms) | 6.00 | 2.00 | 3.00× | (reported: what it costs) | – |");
    expect(figures).toContain("| judged (ms) | 1.00 | 2.00 | 0.500× | ≤ 3 | pass |");
  });

  it("refuses a page without its markers", () => {
    expect(() => renderPerformance("# Page\n", empty, [])).toThrow(/bench:machine/);
  });
});

describe("filing a run", () => {
  const first = record("2026-01-01T00:00:00.000Z", [row("a (ms)", 1)]);
  const second = record("2026-01-02T00:00:00.000Z", [row("b (ms)", 2)]);
  const whole = { at: "2026-01-01T00:00:00.000Z", commit: "abc1234", seconds: 500, figures: 2, missed: 0, failed: 0 };
  const base = recordRun({ version: 1, full: {}, long: {}, wholeRuns: {} }, "full", { one: first, two: first }, whole);

  it("one benchmark replaces its own record and leaves the others and the whole run", () => {
    const after = recordRun(base, "full", { two: second }, null);
    expect(after.full).toEqual({ one: first, two: second });
    expect(after.wholeRuns.full).toEqual(whole);
  });

  it("a whole run replaces every record of its part, and only of its part", () => {
    const withLong = recordRun(base, "long", { hold: first }, null);
    const after = recordRun(withLong, "full", { two: second }, { ...whole, at: second.at });
    expect(after.full).toEqual({ two: second });
    expect(after.long).toEqual({ hold: first });
    expect(after.wholeRuns.full!.at).toBe(second.at);
  });
});
