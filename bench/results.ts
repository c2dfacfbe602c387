// The machine-readable result of `npm run bench`: docs/bench-results.json,
// one record per benchmark and part (figures, or long holds), each with when,
// on which commit and machine it ran and how long it took. A whole run
// replaces every record of its part; `npm run bench -- NAME` replaces NAME's.
// docs/performance.md's table is rendered from this file (bench/render.ts).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BenchRow } from "./result.js";
import type { BenchMode } from "./table.js";

export const RESULTS_PATH = path.resolve("docs/bench-results.json");
const RESULTS_VERSION = 1;

export interface Machine {
  cpu: string;
  /** CPUs this process may use. */
  cores: number;
  memoryGb: number;
  /** Kernel release. */
  os: string;
  node: string;
  /** The 1-minute load average when the benchmark started (other work on a shared machine); null when not recorded. */
  loadAverage: number | null;
}

export interface BenchRecord {
  /** When it started, ISO 8601 UTC. */
  at: string;
  /** The commit measured; "+" after it when tracked files had changes. */
  commit: string;
  seconds: number;
  /** Null for figures imported from before the runner recorded it. */
  machine: Machine | null;
  /** What the benchmark measures, as its code said when it ran. */
  about: string;
  rows: BenchRow[];
  /** Set when the benchmark threw: its message. */
  error?: string;
  /** Where the figures came from when not written by the runner itself. */
  source?: string;
}

export interface WholeRun {
  at: string;
  commit: string;
  seconds: number;
  figures: number;
  missed: number;
  failed: number;
}

export interface Results {
  version: number;
  full: Record<string, BenchRecord>;
  long: Record<string, BenchRecord>;
  /** The last run of every benchmark of a part, one after another. */
  wholeRuns: Partial<Record<BenchMode, WholeRun>>;
}

export function machineNow(): Machine {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

/** HEAD's short hash, with "+" when tracked files differ from it; "unknown" outside a git checkout. */
export function commitNow(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { encoding: "utf8" }).trim();
    return dirty === "" ? head : `${head}+`;
  } catch {
    return "unknown";
  }
}

export function readResults(file = RESULTS_PATH): Results {
  if (!fs.existsSync(file)) return { version: RESULTS_VERSION, full: {}, long: {}, wholeRuns: {} };
  const results = JSON.parse(fs.readFileSync(file, "utf8")) as Results;
  if (results.version !== RESULTS_VERSION)
    throw new Error(`${file} is version ${results.version}; this runner writes ${RESULTS_VERSION}`);
  return results;
}

/**
 * Files what a run measured: each benchmark's record replaces its previous
 * one, and a whole run (every benchmark of the part) replaces them all.
 */
export function recordRun(
  results: Results,
  mode: BenchMode,
  records: Record<string, BenchRecord>,
  whole: WholeRun | null,
): Results {
  const part = whole === null ? { ...results[mode], ...records } : records;
  return {
    ...results,
    [mode]: part,
    wholeRuns: whole === null ? results.wholeRuns : { ...results.wholeRuns, [mode]: whole },
  };
}

export function writeResults(results: Results, file = RESULTS_PATH): void {
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
