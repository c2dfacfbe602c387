// Every benchmark of `npm run bench`, and every long part of `npm run bench --
// long`, at its "smoke" size, so none rots: each must finish and hand back
// rows of the shape the runner prints. Sizes are too small to judge goals, so
// pass is null throughout.
// @lane busy: every benchmark at smoke size, mostly waiting on its phases, some of them loading a core; asserts only
// that each finishes with rows.
import { describe, expect, it } from "vitest";
import { FULL_BENCHMARKS, LONG_BENCHMARKS } from "../../bench/benchmarks.js";
import { runBenchmarks } from "../../bench/run.js";
import type { BenchMode } from "../../bench/table.js";
import { formatTable } from "../../bench/table.js";
import { postgresAvailable } from "../../testkit/postgres.js";

const PARTS: [string, BenchMode][] = [
  ...FULL_BENCHMARKS.map((name): [string, BenchMode] => [name, "full"]),
  ...LONG_BENCHMARKS.map((name): [string, BenchMode] => [name, "long"]),
];

describe("npm run bench at smoke size", () => {
  for (const [name, mode] of PARTS) {
    // postgres-store needs Debian's PostgreSQL binaries (always there in CI, where their absence fails).
    it.skipIf(name === "postgres-store" && !postgresAvailable())(
      `${name}${mode === "long" ? " (long)" : ""} runs and reports its figures`,
      { timeout: 180_000 },
      async () => {
        const { rows, failed, records } = await runBenchmarks([name], "smoke", () => {}, mode);
        expect(failed).toEqual([]);
        expect(records[name]!.about.length).toBeGreaterThan(20);
        expect(rows.length).toBeGreaterThan(0);
        for (const r of rows) {
          expect(r.bench).toBe(name);
          expect(r.figure).toMatch(/\(.+\)/); // the unit is in the figure's text
          expect(Number.isFinite(r.value)).toBe(true);
          expect(r.pass).toBeNull();
        }
        expect(formatTable(rows).split("\n")).toHaveLength(rows.length + 2);
      },
    );
  }
});
