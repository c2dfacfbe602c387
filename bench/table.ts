// Printing benchmark rows as one table, and running one benchmark module on
// its own (`npx tsx bench/NAME.ts [smoke|full]`) the way the runner would.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";

const num = (v: number | null) =>
  v === null ? "–" : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);

/** baseline / value for "smaller is better" figures would invert; the ratio printed is always value / baseline. */
export function ratioOf(row: BenchRow): number | null {
  return row.baseline === null || row.baseline === 0 ? null : row.value / row.baseline;
}

export function formatTable(rows: readonly (BenchRow & { bench: string })[]): string {
  const head = ["benchmark", "figure", "value", "baseline", "ratio", "goal", "pass"];
  const body = rows.map((r) => [
    r.bench,
    r.figure,
    num(r.value),
    num(r.baseline),
    ratioOf(r) === null ? "–" : `${num(ratioOf(r))}×`,
    r.goal,
    r.pass === null ? "–" : r.pass ? "pass" : "FAIL",
  ]);
  const lines = [head, ...body];
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...lines.slice(1).map((cells) => `| ${cells.join(" | ")} |`),
  ].join("\n");
}

export function parseSize(arg: string | undefined): BenchSize {
  if (arg === undefined || arg === "full") return "full";
  if (arg === "smoke") return "smoke";
  throw new Error(`size must be "smoke" or "full" (got '${arg}')`);
}

/** True when the module at `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && path.resolve(script) === fileURLToPath(moduleUrl);
}

/** `npx tsx bench/NAME.ts [smoke|full]`: run one benchmark and print its table. */
export async function runAlone(bench: Benchmark): Promise<void> {
  const rows = await bench.run(parseSize(process.argv[2]));
  console.log(formatTable(rows.map((r) => ({ ...r, bench: bench.name }))));
}
