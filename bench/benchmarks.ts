// The benchmarks `npm run bench` runs, in the order its table prints them.
import type { Benchmark } from "./result.js";

/** Every benchmark, in the order the table prints them. Loaded lazily, so `-- NAME` loads one. */
export const BENCHMARKS: Record<string, () => Promise<{ bench: Benchmark }>> = {
  "echo-overhead": () => import("./echo-overhead.js"),
  "ws-echo-overhead": () => import("./ws-echo-overhead.js"),
  "alert-overhead": () => import("./alert-overhead.js"),
  "chart-queries": () => import("./chart-queries.js"),
  "change-detection": () => import("./change-detection.js"),
  "changes-query": () => import("./changes-query.js"),
  "disk-real-rate": () => import("./disk-real-rate.js"),
  "metrics-scrape": () => import("./metrics-scrape.js"),
  "status-page": () => import("./status-page.js"),
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
  "stress-load": () => import("./stress-load.js"),
  "stress-neighbour": () => import("./stress-neighbour.js"),
};

/** The benchmarks with a long part (`npm run bench -- long` runs these). */
export const LONG_BENCHMARKS = [
  "capacity",
  "baselines-loopback",
  "ping-fanout",
  "bare-page",
  "engine-fidelity",
  "stress-neighbour",
] as const;

/**
 * Benchmarks that are all long part, left out of the habitual `npm run bench`:
 * engine-fidelity holds two pages in each of two browsers for minutes (about
 * 11 minutes in all), stress-neighbour a whole stress test in Chromium (about
 * a minute); baselines-loopback (30 s) and ping-fanout (36 s, most of it
 * starting and stopping 1,000 pings) only report the evidence for a design
 * already chosen. The habitual run keeps its 10 minutes for the goals.
 */
export const LONG_ONLY: readonly string[] = [
  "baselines-loopback",
  "ping-fanout",
  "engine-fidelity",
  "stress-neighbour",
];

/** What `npm run bench` runs with no name: every benchmark but the long-only ones. */
export const FULL_BENCHMARKS = Object.keys(BENCHMARKS).filter((n) => !LONG_ONLY.includes(n));
