// The built-in alerts, on with no configuration, and the `builtins:` section
// of a rules file that tunes or disables them:
//   builtins:
//     TargetDown: true            # from the health feed
//     TailLatencyHigh: false      # p99 over 15m vs the same hours the day before
//     NoReports: { after: 30m }   # the dead-man
//     TailRegression: { within: 6h }
import { isScalar, type Node } from "yaml";
import { NO_REPORTS_AFTER_MS_DEFAULT, NO_REPORTS_AFTER_MS_MAX, NO_REPORTS_AFTER_MS_MIN } from "./no-reports.js";
import { asMap, duration, fields, RuleError } from "./rules-yaml.js";
import {
  TAIL_REGRESSION_WITHIN_MS_DEFAULT,
  TAIL_REGRESSION_WITHIN_MS_MAX,
  TAIL_REGRESSION_WITHIN_MS_MIN,
} from "./tail-regression.js";

export interface BuiltinSettings {
  targetDown: boolean;
  tailLatencyHigh: boolean;
  /** null: NoReports off. */
  noReportsAfterMs: number | null;
  /** null: TailRegression off. */
  tailRegressionWithinMs: number | null;
}

export const BUILTINS_DEFAULT: BuiltinSettings = {
  targetDown: true,
  tailLatencyHigh: true,
  noReportsAfterMs: NO_REPORTS_AFTER_MS_DEFAULT,
  tailRegressionWithinMs: TAIL_REGRESSION_WITHIN_MS_DEFAULT,
};

/** true/false, or for the two that take one, a mapping with that one setting. */
function toggle(node: Node | null | undefined, what: string, key: string | null): boolean | Node | null | undefined {
  if (node === undefined) return true;
  if (isScalar(node) && typeof node.value === "boolean") return node.value;
  if (key === null) throw new RuleError(node, `builtins.${what} must be true or false`);
  const f = fields(asMap(node, `builtins.${what}`), [key], `builtins.${what}`);
  return f.get(key);
}

export function parseBuiltins(node: Node | null | undefined): BuiltinSettings {
  if (node === undefined || node === null) return BUILTINS_DEFAULT;
  const f = fields(
    asMap(node, "builtins"),
    ["TargetDown", "TailLatencyHigh", "NoReports", "TailRegression"],
    "builtins",
  );
  const td = toggle(f.get("TargetDown"), "TargetDown", null) as boolean;
  const tlh = toggle(f.get("TailLatencyHigh"), "TailLatencyHigh", null) as boolean;
  const nr = toggle(f.get("NoReports"), "NoReports", "after");
  const tr = toggle(f.get("TailRegression"), "TailRegression", "within");
  const setting = (v: boolean | Node | null | undefined, what: string, dflt: number, min: number, max: number) => {
    if (v === false) return null;
    if (v === true || v === undefined || v === null) return dflt;
    return duration(v, what, min, max);
  };
  return {
    targetDown: td,
    tailLatencyHigh: tlh,
    noReportsAfterMs: setting(
      nr,
      "builtins.NoReports.after",
      NO_REPORTS_AFTER_MS_DEFAULT,
      NO_REPORTS_AFTER_MS_MIN,
      NO_REPORTS_AFTER_MS_MAX,
    ),
    tailRegressionWithinMs: setting(
      tr,
      "builtins.TailRegression.within",
      TAIL_REGRESSION_WITHIN_MS_DEFAULT,
      TAIL_REGRESSION_WITHIN_MS_MIN,
      TAIL_REGRESSION_WITHIN_MS_MAX,
    ),
  };
}
