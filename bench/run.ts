// `npm run bench [-- [long] NAME...] [-- --smoke]`: runs every benchmark
// listed below (or the named ones), one after another so they do not share
// the CPU, and prints one table: figure, value, baseline, ratio, goal, pass.
// `long` runs the benchmarks' long holds instead (minutes each, so kept out
// of the habitual run). A run at full size files its records in
// docs/bench-results.json and re-renders docs/performance.md's tables.
// Exit status 1 when a goal was missed or a benchmark failed.
import { performance } from "node:perf_hooks";
import { renderPerformanceFile } from "./render.js";
import { BENCHMARKS, FULL_BENCHMARKS, LONG_BENCHMARKS } from "./benchmarks.js";
import type { BenchRow, BenchSize } from "./result.js";
import { commitNow, machineNow, readResults, recordRun, writeResults, type BenchRecord } from "./results.js";
import { type BenchMode, formatTable, isMain, partOf } from "./table.js";

const sig6 = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(6)) : x);

export interface RunOutcome {
  rows: (BenchRow & { bench: string })[];
  /** Benchmarks that threw, with the message. */
  failed: { bench: string; error: string }[];
  /** What each benchmark measured, as filed in docs/bench-results.json. */
  records: Record<string, BenchRecord>;
}

export async function runBenchmarks(
  names: readonly string[],
  size: BenchSize,
  log = console.log,
  mode: BenchMode = "full",
): Promise<RunOutcome> {
  const rows: RunOutcome["rows"] = [];
  const failed: RunOutcome["failed"] = [];
  const records: RunOutcome["records"] = {};
  for (const name of names) {
    const load = BENCHMARKS[name];
    if (load === undefined)
      throw new Error(`no benchmark named '${name}'; known: ${Object.keys(BENCHMARKS).join(", ")}`);
    const at = new Date().toISOString();
    const machine = machineNow();
    const t0 = performance.now();
    log(`\n== ${name}${mode === "long" ? " (long)" : ""} (${size})`);
    let about = "";
    let benchRows: BenchRow[] = [];
    let error: string | undefined;
    try {
      const part = partOf((await load()).bench, mode);
      about = part.about;
      benchRows = await part.run(size);
      for (const r of benchRows) rows.push({ ...r, bench: name });
    } catch (err) {
      error = (err as Error).stack ?? String(err);
      failed.push({ bench: name, error });
      log(`${name} failed: ${(err as Error).message}`);
    }
    const seconds = (performance.now() - t0) / 1000;
    log(`== ${name} took ${seconds.toFixed(1)} s`);
    // Six significant digits: more than any figure means on a shared machine, and diffs stay readable.
    const filed = benchRows.map((r) => ({
      ...r,
      value: sig6(r.value),
      baseline: r.baseline === null ? null : sig6(r.baseline),
    }));
    records[name] = {
      at,
      commit: commitNow(),
      seconds: sig6(seconds),
      machine,
      about,
      rows: filed,
      ...(error ? { error } : {}),
    };
  }
  return { rows, failed, records };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const size: BenchSize = args.includes("--smoke") ? "smoke" : "full";
  const positional = args.filter((a) => !a.startsWith("--"));
  const mode: BenchMode = positional[0] === "long" ? "long" : "full";
  const named = mode === "long" ? positional.slice(1) : positional;
  const all = mode === "long" ? [...LONG_BENCHMARKS] : FULL_BENCHMARKS;
  const names = named.length > 0 ? named : all;
  const unknown = names.filter((n) => !all.includes(n));
  if (unknown.length > 0)
    throw new Error(
      `no ${mode === "long" ? "long part of a " : ""}benchmark named ${unknown.join(", ")}; known: ${all.join(", ")}`,
    );
  const at = new Date().toISOString();
  const t0 = performance.now();
  const { rows, failed, records } = await runBenchmarks(names, size, console.log, mode);
  const seconds = (performance.now() - t0) / 1000;
  const missed = rows.filter((r) => r.pass === false).length;
  console.log(`\n${formatTable(rows)}\n`);
  for (const f of failed) console.log(`FAILED ${f.bench}: ${f.error}`);
  console.log(
    `${rows.length} figures, ${missed} goals missed, ${failed.length} benchmarks failed, ${seconds.toFixed(0)} s`,
  );
  if (size === "full") {
    const whole = named.length === 0;
    const run = { at, commit: commitNow(), seconds, figures: rows.length, missed, failed: failed.length };
    writeResults(recordRun(readResults(), mode, records, whole ? run : null));
    renderPerformanceFile(Object.keys(BENCHMARKS));
    console.log("filed in docs/bench-results.json, rendered into docs/performance.md");
  }
  if (failed.length > 0 || missed > 0) process.exitCode = 1;
}

if (isMain(import.meta.url)) await main();
