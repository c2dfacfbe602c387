// What a rule's alert says: its annotations, from the rules file's templates
// ({{ $labels.NAME }}, {{ $value }}, {{ $threshold }}, as Prometheus rules
// write them) or from defaults that name the series, the figure and the bound.
import type { Labels } from "./alert.js";
import type { RuleJudgement } from "./judge.js";
import type { InstanceState } from "./rule-state.js";
import { isLatency, type AlertRule, type Statistic } from "./rule.js";

const UNITS: [number, string][] = [
  [86_400_000, "d"],
  [3_600_000, "h"],
  [60_000, "m"],
  [1000, "s"],
];

/** 900000 → "15m", 5400000 → "1h30m" (the rules file's own notation). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const [unit, suffix] of UNITS) {
    const n = Math.floor(rest / unit);
    if (n > 0) out += `${n}${suffix}`;
    rest -= n * unit;
  }
  return rest > 0 ? `${out}${rest}ms` : out;
}

/** A value in its statistic's unit: "412 ms", "99.52 %". */
export function formatValue(statistic: Statistic, v: number | null): string {
  if (v === null) return "n/a";
  if (isLatency(statistic)) return `${v >= 100 ? Math.round(v) : Number(v.toPrecision(3))} ms`;
  return `${Number(v.toFixed(2))} %`;
}

const STAT_NAMES: Record<Statistic, string> = {
  p50: "p50",
  p90: "p90",
  p99: "p99",
  availability: "availability",
  failure_rate: "failure rate",
};

/** Replaces {{ $labels.NAME }}, {{ $value }} and {{ $threshold }}; anything else is left as written. */
export function renderTemplate(template: string, labels: Labels, value: string, threshold: string): string {
  return template.replace(/\{\{\s*\$(labels\.([A-Za-z_][A-Za-z0-9_]*)|value|threshold)\s*\}\}/g, (_m, what, name) => {
    if (what === "value") return value;
    if (what === "threshold") return threshold;
    return labels[name as string] ?? "";
  });
}

export function ruleAnnotations(rule: AlertRule, labels: Labels, j: RuleJudgement, state: InstanceState): Labels {
  const value = formatValue(rule.statistic, j.value);
  const threshold = formatValue(rule.statistic, j.threshold);
  const t = rule.threshold;
  const who = labels.client !== undefined ? ` from client ${labels.client}` : "";
  const summary = `${STAT_NAMES[rule.statistic]} of ${labels.method} ${labels.target}${who} over ${formatDuration(rule.windowMs)}: ${value}, ${t.op} ${threshold}`;
  const base = t.relative
    ? ` Its own ${formatDuration(t.baselineMs)} earlier: ${formatValue(rule.statistic, j.baseline)} (threshold ${t.value}×, clear ${t.clear}×).`
    : "";
  const flapping = state.flapping
    ? ` Flapping: it changed state too often over its last ${rule.flapping!.window} evaluations, so it is held firing until it settles.`
    : "";
  const description = `Judged on ${j.samples} ${rule.samples} samples (at least ${rule.minSamples} needed); clears ${t.op === "above" ? "at or below" : "at or above"} ${formatValue(rule.statistic, j.clear)}.${base}${flapping}`;
  const out: Record<string, string> = { summary, description, value };
  if (state.flapping) out.flapping = "true";
  for (const [k, v] of Object.entries(rule.annotations)) out[k] = renderTemplate(v, labels, value, threshold);
  return out;
}
