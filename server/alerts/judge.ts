// A rule's statistic over one series' window, and the threshold it is held
// to at this evaluation: absolute, or a factor of the same window earlier.
import { quantiles } from "../../shared/rollup.js";
import type { WindowCell } from "../query/alert-window.js";
import type { Judgement } from "./rule-state.js";
import { PERCENTILE_OF, type AlertRule, type Statistic } from "./rule.js";

const US_PER_MS = 1000;

export interface Measure {
  /** null when there is no sample to take it from. */
  value: number | null;
  /** The population it is taken over: ok samples for a percentile, ok + failed for the rates. */
  samples: number;
}

/** Every statistic of a cell, taken together: the three percentiles in one ordered pass over its buckets. */
type Measures = Record<Statistic, Measure>;
const LATENCY_STATS = ["p50", "p90", "p99"] as const;

/**
 * Measures already taken of a cell: a merged window that did not change (a
 * baseline a day back) is measured once, not every cycle, and rules of
 * different statistics on one window share the pass.
 */
const measured = new WeakMap<WindowCell, Measures>();

export function measure(cell: WindowCell | undefined, statistic: Statistic): Measure {
  if (cell === undefined) return { value: null, samples: 0 };
  let m = measured.get(cell);
  if (m === undefined) measured.set(cell, (m = measureAll(cell)));
  return m[statistic];
}

function measureAll(cell: WindowCell): Measures {
  const ok = cell.lat.count;
  const [p50, p90, p99] = quantiles(
    cell.lat,
    LATENCY_STATS.map((s) => PERCENTILE_OF[s]),
  ).map((us): Measure => ({ value: us === null ? null : us / US_PER_MS, samples: ok }));
  const n = ok + cell.failures;
  const okPct = n === 0 ? null : (100 * ok) / n;
  return {
    p50: p50!,
    p90: p90!,
    p99: p99!,
    availability: { value: okPct, samples: n },
    failure_rate: { value: okPct === null ? null : 100 - okPct, samples: n },
  };
}

export interface RuleJudgement extends Judgement {
  /** A relative rule's baseline value (same unit); null otherwise or when too thin to judge on. */
  baseline: number | null;
  baselineSamples: number;
}

/** The rule's verdict inputs for one series: its window now and, for a relative rule, the same window earlier. */
export function judge(
  rule: AlertRule,
  current: WindowCell | undefined,
  earlier: WindowCell | undefined,
): RuleJudgement {
  const m = measure(current, rule.statistic);
  const t = rule.threshold;
  const unjudged = (baseline: Measure): RuleJudgement => ({
    value: null,
    samples: m.samples,
    threshold: t.value,
    clear: t.clear,
    baseline: baseline.value,
    baselineSamples: baseline.samples,
  });
  if (m.value === null || m.samples < rule.minSamples) return unjudged({ value: null, samples: 0 });
  if (!t.relative)
    return {
      value: m.value,
      samples: m.samples,
      threshold: t.value,
      clear: t.clear,
      baseline: null,
      baselineSamples: 0,
    };
  const b = measure(earlier, rule.statistic);
  // A baseline that is thin (or zero: no factor of it means anything) judges nothing.
  if (b.value === null || b.value <= 0 || b.samples < rule.minSamples) return unjudged(b);
  let threshold: number;
  let clear: number;
  if (t.op === "above") {
    threshold = Math.max(b.value * t.value, b.value + t.minDeltaMs);
    clear = Math.min(threshold, b.value * t.clear);
  } else {
    threshold = Math.min(b.value * t.value, b.value - t.minDeltaMs);
    clear = Math.max(threshold, b.value * t.clear);
  }
  return { value: m.value, samples: m.samples, threshold, clear, baseline: b.value, baselineSamples: b.samples };
}
