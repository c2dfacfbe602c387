// NoReports, the dead-man: fires when no page has reported a sample for
// `afterMs`, so a laptop asleep, a closed tab or a broken ingest is noticed
// rather than read as "no alerts, all is well". A database that never had a
// report has nothing to have stopped, and raises nothing.
import { fingerprint, rfc3339, type Labels } from "./alert.js";
import type { AlertSink } from "./evaluator.js";
import { formatDuration } from "./rule-text.js";

export const NO_REPORTS_AFTER_MS_DEFAULT = 10 * 60_000;
export const NO_REPORTS_AFTER_MS_MIN = 60_000;
export const NO_REPORTS_AFTER_MS_MAX = 7 * 86_400_000;

export interface NoReportsOptions {
  afterMs: number;
  /** This server's name: the alert's target. */
  serverName: string;
  /** The send time (epoch ms) of the newest stored sample, or null if there is none. */
  newestSampleMs: () => Promise<number | null>;
  sink: AlertSink;
  nowMs: () => number;
  link: (labels: Labels, fromMs: number, toMs: number) => string;
}

export function noReportsLabels(serverName: string): Labels {
  return { alertname: "NoReports", target: serverName, severity: "warning" };
}

/** One check: fires, resolves or does nothing. */
export async function checkNoReports(o: NoReportsOptions): Promise<void> {
  const newest = await o.newestSampleMs();
  if (newest === null) return;
  const now = o.nowMs();
  const labels = noReportsLabels(o.serverName);
  const silentMs = now - newest;
  if (silentMs >= o.afterMs) {
    await o.sink.fire({
      labels,
      annotations: {
        summary: `No page has reported to ${o.serverName} for ${formatDuration(o.afterMs)} or more: the newest sample was sent at ${rfc3339(newest)}`,
        description:
          "Every probe page stopped reporting (closed tabs, a sleeping machine, a network or ingest failure). Nothing measured means nothing alerted on.",
      },
      startsAtMs: newest + o.afterMs,
      generatorUrl: o.link(labels, newest - 15 * 60_000, now),
    });
  } else if (o.sink.isFiring(fingerprint(labels))) await o.sink.resolve(labels, now);
}
