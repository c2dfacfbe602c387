// `npm run bench [-- NAME... ] [-- --smoke]`: runs every benchmark listed
// below (or the named ones), one after another so they do not share the CPU,
// and prints one table: figure, value, baseline, ratio, goal, pass.
// Exit status 1 when a goal was missed or a benchmark failed.
import { performance } from "node:perf_hooks";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { formatTable, isMain } from "./table.js";

/** Every benchmark, in the order the table prints them. Loaded lazily, so `-- NAME` loads one. */
export const BENCHMARKS: Record<string, () => Promise<{ bench: Benchmark }>> = {
  "echo-overhead": () => import("./echo-overhead.js"),
  "ws-echo-overhead": () => import("./ws-echo-overhead.js"),
  "chart-queries": () => import("./chart-queries.js"),
  "disk-real-rate": () => import("./disk-real-rate.js"),
  "metrics-scrape": () => import("./metrics-scrape.js"),
  "query-stall": () => import("./query-stall.js"),
  "ingest-rate": () => import("./ingest-rate.js"),
  "ingest-stall": () => import("./ingest-stall.js"),
  "raw-layout": () => import("./raw-layout.js"),
  "postgres-store": () => import("./postgres-store.js"),
  capacity: () => import("./capacity.js"),
  "histogram-page": () => import("./histogram-page.js"),
  "baselines-loopback": () => import("./baselines-loopback.js"),
  "baselines-browser": () => import("./baselines-browser.js"),
  "ping-fanout": () => import("./ping-fanout.js"),
  "bare-page": () => import("./bare-page.js"),
  "engine-fidelity": () => import("./engine-fidelity.js"),
};

export interface RunOutcome {
  rows: (BenchRow & { bench: string })[];
  /** Benchmarks that threw, with the message. */
  failed: { bench: string; error: string }[];
}

export async function runBenchmarks(names: readonly string[], size: BenchSize, log = console.log): Promise<RunOutcome> {
  const rows: RunOutcome["rows"] = [];
  const failed: RunOutcome["failed"] = [];
  for (const name of names) {
    const load = BENCHMARKS[name];
    if (load === undefined)
      throw new Error(`no benchmark named '${name}'; known: ${Object.keys(BENCHMARKS).join(", ")}`);
    const t0 = performance.now();
    log(`\n== ${name} (${size})`);
    try {
      const { bench } = await load();
      for (const r of await bench.run(size)) rows.push({ ...r, bench: name });
    } catch (err) {
      failed.push({ bench: name, error: (err as Error).stack ?? String(err) });
      log(`${name} failed: ${(err as Error).message}`);
    }
    log(`== ${name} took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return { rows, failed };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const size: BenchSize = args.includes("--smoke") ? "smoke" : "full";
  const names = args.filter((a) => !a.startsWith("--"));
  const t0 = performance.now();
  const { rows, failed } = await runBenchmarks(names.length > 0 ? names : Object.keys(BENCHMARKS), size);
  console.log(`\n${formatTable(rows)}\n`);
  for (const f of failed) console.log(`FAILED ${f.bench}: ${f.error}`);
  console.log(
    `${rows.length} figures, ${rows.filter((r) => r.pass === false).length} goals missed, ${failed.length} benchmarks failed, ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  if (failed.length > 0 || rows.some((r) => r.pass === false)) process.exitCode = 1;
}

if (isMain(import.meta.url)) await main();
