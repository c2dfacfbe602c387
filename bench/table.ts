// Printing benchmark rows as one table, and running one benchmark module on
// its own (`npx tsx bench/NAME.ts [smoke|full|long]`) the way the runner would.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";

const num = (v: number | null) =>
  v === null ? "–" : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);

/** baseline / value for "smaller is better" figures would invert; the ratio printed is always value / baseline. */
export function ratioOf(row: BenchRow): number | null {
  return row.baseline === null || row.baseline === 0 ? null : row.value / row.baseline;
}

/** A row's cells after its benchmark's name: figure, value, baseline, ratio, goal, pass. */
export function formatRow(r: BenchRow): string[] {
  const ratio = ratioOf(r);
  return [
    r.figure,
    num(r.value),
    num(r.baseline),
    ratio === null ? "–" : `${num(ratio)}×`,
    r.goal,
    r.pass === null ? "–" : r.pass ? "pass" : "FAIL",
  ];
}

export function formatTable(rows: readonly (BenchRow & { bench: string })[]): string {
  const head = ["benchmark", "figure", "value", "baseline", "ratio", "goal", "pass"];
  const body = rows.map((r) => [r.bench, ...formatRow(r)]);
  const lines = [head, ...body];
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...lines.slice(1).map((cells) => `| ${cells.join(" | ")} |`),
  ].join("\n");
}

/** Which part of a benchmark runs: its figures for `npm run bench`, or its long holds (`npm run bench -- long`). */
export type BenchMode = "full" | "long";

/** The runners' size argument: "long" is the long part at full size. */
export function parseSize(arg: string | undefined): { size: BenchSize; mode: BenchMode } {
  if (arg === undefined || arg === "full") return { size: "full", mode: "full" };
  if (arg === "smoke") return { size: "smoke", mode: "full" };
  if (arg === "long") return { size: "full", mode: "long" };
  throw new Error(`size must be "smoke", "full" or "long" (got '${arg}')`);
}

/** The part of `bench` that `mode` runs; throws when it has no long part. */
export function partOf(bench: Benchmark, mode: BenchMode): { about: string; run: Benchmark["run"] } {
  if (mode === "full") return bench;
  if (bench.long === undefined) throw new Error(`${bench.name} has no long part`);
  return bench.long;
}

/** True when the module at `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && path.resolve(script) === fileURLToPath(moduleUrl);
}

/** `npx tsx bench/NAME.ts [smoke|full|long]`: run one benchmark and print its table (no results file is written). */
export async function runAlone(bench: Benchmark): Promise<void> {
  const { size, mode } = parseSize(process.argv[2]);
  const rows = await partOf(bench, mode).run(size);
  console.log(formatTable(rows.map((r) => ({ ...r, bench: bench.name }))));
}
