// TailRegression, from the change source: one alert per change found in the
// last `withinMs`, with its verdict; resolved once the change is older than
// that, or when the source no longer reports it.
import { fingerprint, rfc3339, type Alert, type Labels } from "./alert.js";
import type { AlertSink } from "./evaluator.js";
import type { ChangeSource, ChangeView } from "./feeds.js";

export const TAIL_REGRESSION_WITHIN_MS_DEFAULT = 6 * 3_600_000;
export const TAIL_REGRESSION_WITHIN_MS_MIN = 30 * 60_000;
export const TAIL_REGRESSION_WITHIN_MS_MAX = 7 * 86_400_000;
/** Around a change, the histogram link shows this much on each side (ms). */
const LINK_SPAN_MS = 2 * 3_600_000;

export interface TailRegressionOptions {
  source: ChangeSource;
  withinMs: number;
  sink: AlertSink;
  nowMs: () => number;
  link: (labels: Labels, fromMs: number, toMs: number) => string;
}

export function changeLabels(c: ChangeView): Labels {
  return {
    alertname: "TailRegression",
    target: c.target,
    method: c.method,
    statistic: c.statistic,
    ...(c.client !== null ? { client: c.client } : {}),
    // One alert per change: two changes of one series are two alerts.
    changed_at: rfc3339(c.t),
    severity: "warning",
  };
}

const ms = (v: number) => `${Number(v.toPrecision(3))} ms`;

export class TailRegression {
  /** Firing changes by fingerprint, with their labels and time. */
  private readonly known = new Map<string, { labels: Labels; t: number }>();

  constructor(private readonly o: TailRegressionOptions) {}

  adopt(firing: readonly { fingerprint: string; alert: Alert }[]): void {
    for (const { fingerprint: fp, alert } of firing)
      if (alert.labels.alertname === "TailRegression")
        this.known.set(fp, { labels: alert.labels, t: Date.parse(alert.labels.changed_at ?? "") || alert.startsAtMs });
  }

  async check(): Promise<void> {
    const now = this.o.nowMs();
    const changes = await this.o.source.changes(now - this.o.withinMs, now);
    const seen = new Set<string>();
    for (const c of changes) {
      if (now - c.t >= this.o.withinMs) continue;
      const labels = changeLabels(c);
      const fp = fingerprint(labels);
      seen.add(fp);
      this.known.set(fp, { labels, t: c.t });
      const who = c.client !== null ? ` from client ${c.client}` : "";
      await this.o.sink.fire({
        labels,
        annotations: {
          summary: `${c.method} ${c.target}${who} ${c.statistic} ${ms(c.before)} → ${ms(c.after)} (×${Number(c.ratio.toFixed(2))}) at ${rfc3339(c.t)}`,
          description: c.evidence,
          verdict: c.verdict,
          change: c.id,
        },
        startsAtMs: c.t,
        generatorUrl: this.o.link(labels, c.t - LINK_SPAN_MS, c.t + LINK_SPAN_MS),
      });
    }
    for (const [fp, k] of this.known) {
      if (seen.has(fp)) continue;
      this.known.delete(fp);
      if (this.o.sink.isFiring(fp)) await this.o.sink.resolve(k.labels, now);
    }
  }
}
