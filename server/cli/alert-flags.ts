// The alerting flags, parsed into the options object like every other flag
// (see options.ts, which includes them). The rules file is read and checked
// here, so a bad one stops the server at start with its line and problem.
import fs from "node:fs";
import { fail, ok, type Result } from "../../shared/result.js";
import type { AlertOptions } from "../alerts/alerts.js";
import { BUILTINS_DEFAULT } from "../alerts/builtins.js";
import { parseAlertmanagerUrl, parseNotifyUrl, type ReceiverSpec } from "../alerts/notify/receiver-url.js";
import { parseRulesFile } from "../alerts/rules-file.js";

/** A rules file larger than this (bytes) is refused: a thousand rules fit in a fraction of it. */
export const RULES_FILE_BYTES_MAX = 1024 * 1024;
export const NOTIFY_MAX = 16;

export const ALERT_FLAGS = {
  alerts: {
    type: "string",
    help: "alert rules file (YAML in Prometheus' rule-file layout, docs/alerts.md); the built-in alerts need none",
  },
  alertmanager: {
    type: "string",
    help: "push alerts to a Prometheus Alertmanager's v2 API at this base URL (e.g. http://localhost:9093)",
  },
  notify: {
    type: "string",
    multiple: true,
    help: "POST each firing and resolved alert to URL (repeatable): Alertmanager's webhook payload; ntfy://host/topic, https://ntfy.sh/topic and https://hooks.slack.com/… get their own",
  },
} as const;

export const ALERT_FLAG_ARGS = { alerts: "FILE", alertmanager: "URL", notify: "URL" } as const;

export type ReadFile = (path: string) => string;

const readUtf8: ReadFile = (p) => {
  if (fs.statSync(p).size > RULES_FILE_BYTES_MAX) throw new Error(`larger than ${RULES_FILE_BYTES_MAX} bytes`);
  return fs.readFileSync(p, "utf8");
};

export function parseAlertFlags(values: Record<string, unknown>, readFile: ReadFile = readUtf8): Result<AlertOptions> {
  let config = { rules: [] as AlertOptions["rules"], builtins: BUILTINS_DEFAULT };
  const file = values.alerts as string | undefined;
  if (file !== undefined) {
    let source: string;
    try {
      source = readFile(file);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      return fail(`--alerts ${file}: cannot read it (${e.code ?? e.message})`);
    }
    const parsed = parseRulesFile(source, file);
    if (!parsed.ok) return fail(`--alerts ${parsed.error}`);
    config = parsed.value;
  }
  const notify: ReceiverSpec[] = [];
  for (const raw of (values.notify as string[] | undefined) ?? []) {
    const r = parseNotifyUrl(raw);
    if (!r.ok) return r;
    if (notify.some((n) => n.key === r.value.key)) return fail(`--notify ${r.value.display} is given twice`);
    notify.push(r.value);
  }
  if (notify.length > NOTIFY_MAX) return fail(`--notify may be given at most ${NOTIFY_MAX} times`);
  const raw = values.alertmanager as string | undefined;
  let alertmanager: ReceiverSpec | undefined;
  if (raw !== undefined) {
    const r = parseAlertmanagerUrl(raw);
    if (!r.ok) return r;
    alertmanager = r.value;
  }
  return ok({ rules: config.rules, builtins: config.builtins, notify, alertmanager });
}
