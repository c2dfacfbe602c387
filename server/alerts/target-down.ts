// TargetDown, from the health feed: fires when a `down` incident opens,
// carrying its verdict and summary, and resolves when the last down incident
// of that target closes.
import { fingerprint, type Alert, type Labels } from "./alert.js";
import type { AlertSink } from "./evaluator.js";
import type { HealthFeed, IncidentView } from "./feeds.js";

/**
 * After a restart, a TargetDown left firing is resolved once the feed has had
 * this long (ms) to reopen its incident and the target is not down.
 */
export const RESTORE_GRACE_MS = 60_000;

export interface TargetDownOptions {
  feed: HealthFeed;
  sink: AlertSink;
  nowMs: () => number;
  link: (labels: Labels, fromMs: number, toMs: number) => string;
}

export const targetDownLabels = (target: string): Labels => ({
  alertname: "TargetDown",
  target,
  severity: "critical",
});

export function annotationsOf(i: IncidentView): Labels {
  return {
    summary: i.summary,
    description: [`verdict: ${i.verdict}`, ...i.evidence].join("; "),
    verdict: i.verdict,
    incident: i.id,
    observer: i.observer,
  };
}

export class TargetDown {
  /** Open down incidents by id. */
  private readonly open = new Map<string, IncidentView>();
  /** Alerts a previous life left firing, by target, until the feed confirms or the grace passes. */
  private readonly restored = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(private readonly o: TargetDownOptions) {
    this.unsubscribe = o.feed.subscribe((e) => void this.onEvent(e.type, e.incident));
  }

  adopt(firing: readonly { alert: Alert }[]): void {
    const now = this.o.nowMs();
    for (const { alert } of firing)
      if (alert.labels.alertname === "TargetDown" && alert.labels.target !== undefined)
        this.restored.set(alert.labels.target, now);
  }

  stop(): void {
    this.unsubscribe();
  }

  private async onEvent(type: "opened" | "updated" | "closed", i: IncidentView): Promise<void> {
    if (i.kind !== "down") return;
    if (type === "closed" || i.end !== null) {
      this.open.delete(i.id);
      if (![...this.open.values()].some((x) => x.target === i.target))
        await this.o.sink.resolve(targetDownLabels(i.target), i.end ?? this.o.nowMs());
      return;
    }
    this.open.set(i.id, i);
    this.restored.delete(i.target);
    await this.fire(i);
  }

  private fire(i: IncidentView): Promise<void> {
    const labels = targetDownLabels(i.target);
    return this.o.sink.fire({
      labels,
      annotations: annotationsOf(i),
      startsAtMs: i.start,
      generatorUrl: this.o.link(labels, i.start - 5 * 60_000, i.start + 30 * 60_000),
    });
  }

  /** Each cycle: re-asserts what is open (a failed write is retried) and settles restored alerts. */
  async check(): Promise<void> {
    const newest = new Map<string, IncidentView>();
    for (const i of this.open.values()) if ((newest.get(i.target)?.start ?? -1) < i.start) newest.set(i.target, i);
    for (const i of newest.values()) await this.fire(i);
    const now = this.o.nowMs();
    const states = new Map(this.o.feed.states().map((s) => [s.target, s.state]));
    for (const [target, sinceMs] of this.restored) {
      if (now - sinceMs < RESTORE_GRACE_MS || states.get(target) === "down") continue;
      this.restored.delete(target);
      const labels = targetDownLabels(target);
      if (this.o.sink.isFiring(fingerprint(labels))) await this.o.sink.resolve(labels, now);
    }
  }
}
