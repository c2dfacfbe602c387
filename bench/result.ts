// What every benchmark hands the `npm run bench` runner: one row per figure,
// measured beside its baseline in the same run (these machines are shared and
// noisy, so a figure alone says little; its ratio to a same-run baseline does).

/** How large a run is: "smoke" finishes in seconds (run by `npm test` so no benchmark rots), "full" is the real measurement. */
export type BenchSize = "smoke" | "full";

export interface BenchRow {
  /** What was measured, e.g. "/api/stats, 10M samples, range all (ms)". Unit in the text. */
  figure: string;
  /** The measured value, in the unit the figure names. */
  value: number;
  /** The same-run baseline it is compared with (e.g. the raw scan, a bare server), or null when the goal is absolute. */
  baseline: number | null;
  /** The goal in words, e.g. "≤ 100 ms and ≥ 20× faster". */
  goal: string;
  /** Whether the goal was met; null in a smoke run, where sizes are too small to judge. */
  pass: boolean | null;
}

/** A benchmark module's export: `export const bench: Benchmark`. */
export interface Benchmark {
  /** Name used by `npm run bench -- NAME`. */
  name: string;
  /** What it measures and against what, in a sentence or two: docs/performance.md prints it beside the figures. */
  about: string;
  run(size: BenchSize): Promise<BenchRow[]>;
  /** Figures that need minutes of holding still, run by `npm run bench -- long` only. */
  long?: { about: string; run(size: BenchSize): Promise<BenchRow[]> };
}

/** The median of repeated measurements (the upper one of an even count), as every benchmark reports its rounds. */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
