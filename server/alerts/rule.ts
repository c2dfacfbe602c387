// An alert rule on a latency series, as the rules file (rules-file.ts) and
// the built-in TailLatencyHigh describe it, with its defaults and limits.
import { LEVEL_MS } from "../store/rollup-class.js";
import type { SampleMode } from "../query/alert-window.js";

export const STATISTICS = ["p50", "p90", "p99", "availability", "failure_rate"] as const;
export type Statistic = (typeof STATISTICS)[number];

/** Percentile of each latency statistic. */
export const PERCENTILE_OF: Record<"p50" | "p90" | "p99", number> = { p50: 50, p90: 90, p99: 99 };
export const isLatency = (s: Statistic): s is "p50" | "p90" | "p99" => s === "p50" || s === "p90" || s === "p99";

/**
 * Windows are whole 5-minute rollup buckets: a rule reads the stored rollups
 * of the buckets overlapping its window, the current one as far as it has
 * been reported, and never raw samples (so a 15m window judges 15-20 minutes).
 */
export const WINDOW_STEP_MS = LEVEL_MS[0];
export const WINDOW_MS_MAX = 24 * 3_600_000;
/** How far back a relative threshold may look (5-minute rollups live as long as raw samples: 30 days by default). */
export const BASELINE_MS_MAX = 28 * 86_400_000;
export const BASELINE_MS_DEFAULT = 86_400_000;
export const FOR_MS_MAX = 24 * 3_600_000;
export const INTERVAL_MS_DEFAULT = 30_000;
export const INTERVAL_MS_MIN = 5_000;
export const INTERVAL_MS_MAX = 3_600_000;
export const SAMPLE_MODE_DEFAULT: SampleMode = "on-time";

/**
 * Fewest samples a rule judges on, by statistic: a percentile needs five
 * samples beyond it (p99: 500), so three slow probes in a quiet window do not
 * page anyone; availability and failure rate a minute of one tab at 1 Hz.
 */
export const MIN_SAMPLES_DEFAULT: Record<Statistic, number> = {
  p50: 10,
  p90: 50,
  p99: 500,
  availability: 60,
  failure_rate: 60,
};
export const MIN_SAMPLES_MAX = 10_000_000;

/**
 * Flapping, as Nagios detects it: the share of state changes among the last
 * `window` judged evaluations, later changes weighted more (0.8 to 1.2);
 * flapping starts above `startPct` and ends below `stopPct` (Nagios' service
 * defaults: 21 states, 20 %, 5 %).
 */
export interface FlapOptions {
  window: number;
  startPct: number;
  stopPct: number;
}
export const FLAP_DEFAULT: FlapOptions = { window: 21, startPct: 20, stopPct: 5 };
export const FLAP_WINDOW_MIN = 3;
export const FLAP_WINDOW_MAX = 100;

export interface SeriesSelector {
  /** Methods judged (one alert each); null: every probe method (xhr, jsonp, ws). */
  methods: readonly string[] | null;
  /** Targets judged (one alert each); null: every target with samples. */
  targets: readonly string[] | null;
  /** "all": every client's samples together; "each": one alert per client; else one client's public id. */
  client: string;
}

export interface Threshold {
  /** "above": bad when the value exceeds `value`; "below": bad when it falls under it. */
  op: "above" | "below";
  /** ms for latency statistics, percent for availability and failure_rate, a factor when relative. */
  value: number;
  /** Back to good past this (same unit); equal to value when no hysteresis was asked for. */
  clear: number;
  /** value and clear are factors of the same statistic `baselineMs` earlier. */
  relative: boolean;
  /** Relative only: the same window this long ago is the baseline (ms). */
  baselineMs: number;
  /** Relative only: the value must also differ from the baseline by this much (ms), so 1 ms → 2 ms is no alert. */
  minDeltaMs: number;
}

export interface AlertRule {
  /** labels.alertname */
  name: string;
  /** Its group in the rules file ("builtin" for TailLatencyHigh). */
  group: string;
  /** How often it is evaluated (ms): its group's interval. */
  intervalMs: number;
  series: SeriesSelector;
  statistic: Statistic;
  windowMs: number;
  threshold: Threshold;
  minSamples: number;
  /** Bad for this long before it fires (ms), as Prometheus' `for`. */
  forMs: number;
  samples: SampleMode;
  /** null: never held as flapping. */
  flapping: FlapOptions | null;
  labels: Readonly<Record<string, string>>;
  /** Templates: {{ $labels.NAME }}, {{ $value }}, {{ $threshold }} (rule-text.ts). */
  annotations: Readonly<Record<string, string>>;
  /** Where it was written, for log lines ("rules.yml:12"); "builtin" for the built-in. */
  origin: string;
}

/** The built-in TailLatencyHigh: a target's p99 over 15 minutes at least twice its own, same hours, the day before. */
export const TAIL_LATENCY_HIGH: AlertRule = {
  name: "TailLatencyHigh",
  group: "builtin",
  intervalMs: INTERVAL_MS_DEFAULT,
  series: { methods: null, targets: null, client: "all" },
  statistic: "p99",
  windowMs: 15 * 60_000,
  threshold: {
    op: "above",
    value: 2,
    clear: 1.5,
    relative: true,
    baselineMs: BASELINE_MS_DEFAULT,
    // A p99 of 3 ms that becomes 7 ms on loopback is no news; 20 ms more is.
    minDeltaMs: 20,
  },
  minSamples: MIN_SAMPLES_DEFAULT.p99,
  forMs: 5 * 60_000,
  samples: SAMPLE_MODE_DEFAULT,
  flapping: FLAP_DEFAULT,
  labels: { severity: "warning" },
  annotations: {},
  origin: "builtin",
};
