// --alerts FILE: alert rules in the layout of a Prometheus rules file
// (groups → name, interval, rules → alert, for, labels, annotations), with
// tailprobe's series fields in place of a PromQL `expr`; docs/alerts.md has
// the reference. Read with the `yaml` package's document API so that every
// error names the line it is about.
import { isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from "yaml";
import { TCP_MIN_RTT_SERIES } from "../../shared/contract/index.js";
import { METHODS } from "../../shared/methods.js";
import { TARGET_PATTERN } from "../../shared/names.js";
import { fail, ok, type Result } from "../../shared/result.js";
import { PUBLIC_ID_CHARS } from "../privacy/public-ids.js";
import { SAMPLE_MODES, type SampleMode } from "../query/alert-window.js";
import { BUILTIN_ALERTS } from "./alert.js";
import * as B from "./builtins.js";
import * as R from "./rule.js";
import { isFactor, parseFactor, parseLatencyMs, parsePercent } from "./rule-values.js";
import {
  asMap,
  duration,
  fields,
  integer,
  list,
  NAME,
  parsed,
  RuleError,
  stringMap,
  text,
  type Fields,
} from "./rules-yaml.js";

/** Labels an alert gets from its series; a rule may not set them. */
const SERIES_LABELS = new Set(["alertname", "target", "method", "client"]);
const SERIES_METHODS = new Set<string>([...METHODS, TCP_MIN_RTT_SERIES]);
const PUBLIC_ID = new RegExp(`^[A-Za-z0-9_-]{${PUBLIC_ID_CHARS}}$`);
export const RULES_MAX = 1000;

export interface AlertsConfig {
  rules: R.AlertRule[];
  builtins: B.BuiltinSettings;
}

function threshold(f: Fields, statistic: R.Statistic, ruleNode: Node): R.Threshold {
  const above = f.get("above");
  const below = f.get("below");
  if ((above === undefined) === (below === undefined))
    throw new RuleError(ruleNode, "a rule needs exactly one of 'above' or 'below'");
  const op = above !== undefined ? "above" : "below";
  const node = (above ?? below)!;
  const raw = text(node, op);
  const relative = isFactor(raw);
  const amount = (n: Node | null | undefined, what: string): number => {
    const s = text(n, what);
    if (isFactor(s) !== relative)
      throw new RuleError(n, `${what} must be ${relative ? "a factor (e.g. 1.5x)" : "absolute"} like '${op}'`);
    if (relative) return parsed(n, what, parseFactor(s));
    if (R.isLatency(statistic)) return parsed(n, what, parseLatencyMs(s));
    return parsed(n, what, parsePercent(s));
  };
  if (relative && !R.isLatency(statistic))
    throw new RuleError(node, `a factor threshold ('${raw}') is for p50, p90 and p99; give ${statistic} in %`);
  const value = amount(node, op);
  const clearNode = f.get("clear");
  const clear = clearNode === undefined ? value : amount(clearNode, "clear");
  if (op === "above" ? clear > value : clear < value)
    throw new RuleError(clearNode!, `clear must be ${op === "above" ? "at most" : "at least"} the '${op}' threshold`);
  for (const k of ["baseline", "min_delta"])
    if (!relative && f.has(k)) throw new RuleError(f.get(k), `${k} is for factor thresholds (e.g. above: 2x)`);
  const baselineMs = f.has("baseline")
    ? duration(f.get("baseline"), "baseline", R.WINDOW_STEP_MS, R.BASELINE_MS_MAX)
    : R.BASELINE_MS_DEFAULT;
  const minDeltaMs = f.has("min_delta")
    ? parsed(f.get("min_delta"), "min_delta", parseLatencyMs(text(f.get("min_delta"), "min_delta")))
    : 0;
  return { op, value, clear, relative, baselineMs, minDeltaMs };
}

function flapping(node: Node | null | undefined): R.FlapOptions | null {
  if (node === undefined) return R.FLAP_DEFAULT;
  if (isScalar(node) && typeof node.value === "boolean") return node.value ? R.FLAP_DEFAULT : null;
  const f = fields(asMap(node, "flapping"), ["window", "start", "stop"], "flapping");
  const window = f.has("window")
    ? integer(f.get("window"), "flapping.window", R.FLAP_WINDOW_MIN, R.FLAP_WINDOW_MAX)
    : R.FLAP_DEFAULT.window;
  const pct = (k: string, d: number) =>
    f.has(k) ? parsed(f.get(k), `flapping.${k}`, parsePercent(text(f.get(k), `flapping.${k}`))) : d;
  const startPct = pct("start", R.FLAP_DEFAULT.startPct);
  const stopPct = pct("stop", R.FLAP_DEFAULT.stopPct);
  if (stopPct >= startPct) throw new RuleError(node, "flapping.stop must be below flapping.start");
  return { window, startPct, stopPct };
}

const RULE_FIELDS = [
  "alert",
  "method",
  "target",
  "client",
  "statistic",
  "window",
  "above",
  "below",
  "clear",
  "baseline",
  "min_delta",
  "min_samples",
  "for",
  "samples",
  "flapping",
  "labels",
  "annotations",
] as const;

function rule(node: Node, group: string, intervalMs: number, origin: (n: Node) => string): R.AlertRule {
  const f = fields(asMap(node, "a rule"), RULE_FIELDS, "a rule");
  if (!f.has("alert")) throw new RuleError(node, "a rule needs 'alert': its name");
  const name = text(f.get("alert"), "alert");
  if (!NAME.test(name)) throw new RuleError(f.get("alert"), `alert '${name}' must be a name like TailSlow`);
  if ((BUILTIN_ALERTS as readonly string[]).includes(name))
    throw new RuleError(f.get("alert"), `alert '${name}' is built in: tune or disable it under 'builtins'`);
  const methods = f.has("method") ? list(f.get("method"), "method") : null;
  for (const m of methods ?? [])
    if (!SERIES_METHODS.has(m))
      throw new RuleError(f.get("method"), `method '${m}' is not one of ${[...SERIES_METHODS].join(", ")}`);
  const targets = f.has("target") ? list(f.get("target"), "target") : null;
  for (const t of targets ?? [])
    if (!TARGET_PATTERN.test(t)) throw new RuleError(f.get("target"), `target '${t}' is not a server name`);
  const client = f.has("client") ? text(f.get("client"), "client") : "all";
  if (client !== "all" && client !== "each" && !PUBLIC_ID.test(client))
    throw new RuleError(f.get("client"), `client must be all, each or a client's public id (got '${client}')`);
  if (!f.has("statistic")) throw new RuleError(node, `a rule needs 'statistic': one of ${R.STATISTICS.join(", ")}`);
  const statistic = text(f.get("statistic"), "statistic") as R.Statistic;
  if (!R.STATISTICS.includes(statistic))
    throw new RuleError(f.get("statistic"), `statistic must be one of ${R.STATISTICS.join(", ")}`);
  if (!f.has("window")) throw new RuleError(node, "a rule needs 'window' (e.g. 15m)");
  const windowMs = duration(f.get("window"), "window", R.WINDOW_STEP_MS, R.WINDOW_MS_MAX);
  if (windowMs % R.WINDOW_STEP_MS !== 0)
    throw new RuleError(f.get("window"), `window must be a multiple of 5m, the rollups' bucket`);
  const samples = (f.has("samples") ? text(f.get("samples"), "samples") : R.SAMPLE_MODE_DEFAULT) as SampleMode;
  if (!SAMPLE_MODES.includes(samples))
    throw new RuleError(f.get("samples"), `samples must be one of ${SAMPLE_MODES.join(", ")}`);
  return {
    name,
    group,
    intervalMs,
    series: { methods, targets, client },
    statistic,
    windowMs,
    threshold: threshold(f, statistic, node),
    minSamples: f.has("min_samples")
      ? integer(f.get("min_samples"), "min_samples", 1, R.MIN_SAMPLES_MAX)
      : R.MIN_SAMPLES_DEFAULT[statistic],
    forMs: f.has("for") ? duration(f.get("for"), "for", 0, R.FOR_MS_MAX) : 0,
    samples,
    flapping: flapping(f.get("flapping")),
    labels: stringMap(f.get("labels"), "labels", SERIES_LABELS),
    annotations: stringMap(f.get("annotations"), "annotations", new Set()),
    origin: origin(node),
  };
}

function config(doc: Node | null, origin: (n: Node) => string): AlertsConfig {
  if (doc === null) return { rules: [], builtins: B.BUILTINS_DEFAULT };
  const top = fields(asMap(doc, "the file"), ["groups", "builtins"], "the file");
  const builtins = B.parseBuiltins(top.get("builtins"));
  const rules: R.AlertRule[] = [];
  const names = new Map<string, string>();
  const groups = top.get("groups");
  if (groups !== undefined && groups !== null) {
    if (!isSeq(groups)) throw new RuleError(groups, "groups must be a list");
    const groupNames = new Set<string>();
    for (const g of groups.items as Node[]) {
      const gf = fields(asMap(g, "a group"), ["name", "interval", "rules"], "a group");
      if (!gf.has("name")) throw new RuleError(g, "a group needs 'name'");
      const name = text(gf.get("name"), "name");
      if (groupNames.has(name)) throw new RuleError(gf.get("name"), `group '${name}' is named twice`);
      groupNames.add(name);
      const intervalMs = gf.has("interval")
        ? duration(gf.get("interval"), "interval", R.INTERVAL_MS_MIN, R.INTERVAL_MS_MAX)
        : R.INTERVAL_MS_DEFAULT;
      const rs = gf.get("rules");
      if (!isSeq(rs)) throw new RuleError(rs ?? g, "a group needs 'rules': a list");
      for (const r of rs.items as Node[]) {
        const compiled = rule(r, name, intervalMs, origin);
        const seen = names.get(compiled.name);
        if (seen !== undefined) throw new RuleError(r, `alert '${compiled.name}' is already defined at ${seen}`);
        names.set(compiled.name, compiled.origin);
        rules.push(compiled);
        if (rules.length > RULES_MAX) throw new RuleError(r, `at most ${RULES_MAX} rules`);
      }
    }
  }
  return { rules, builtins };
}

/** Parses a rules file's text; errors read "FILE:LINE: problem". */
export function parseRulesFile(source: string, fileName: string): Result<AlertsConfig> {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first !== undefined) {
    const line = lines.linePos(first.pos[0]).line;
    return fail(`${fileName}:${line}: ${first.message.split("\n")[0]}`);
  }
  const lineOf = (n: Node | Pair | null | undefined): number => {
    const range = n !== null && n !== undefined && "range" in n ? n.range : undefined;
    return range !== undefined && range !== null ? lines.linePos(range[0]).line : 1;
  };
  try {
    return ok(config(doc.contents as Node | null, (n) => `${fileName}:${lineOf(n)}`));
  } catch (err) {
    if (err instanceof RuleError) return fail(`${fileName}:${lineOf(err.node)}: ${err.message}`);
    throw err;
  }
}
