// Every benchmark of `npm run bench`, at its "smoke" size, so none rots: each
// must finish and hand back rows of the shape the runner prints. Sizes are
// too small to judge goals, so pass is null throughout.
import { describe, expect, it } from "vitest";
import { BENCHMARKS, runBenchmarks } from "../../bench/run.js";
import { formatTable } from "../../bench/table.js";
import { postgresAvailable } from "../../testkit/postgres.js";

describe("npm run bench at smoke size", () => {
  for (const name of Object.keys(BENCHMARKS)) {
    // postgres-store needs Debian's PostgreSQL binaries (always there in CI, where their absence fails).
    it.skipIf(name === "postgres-store" && !postgresAvailable())(
      `${name} runs and reports its figures`,
      { timeout: 180_000 },
      async () => {
        const { rows, failed } = await runBenchmarks([name], "smoke", () => {});
        expect(failed).toEqual([]);
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
