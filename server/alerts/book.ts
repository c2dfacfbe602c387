// The alerts that fire now, whoever raised them (a rule, the health feed, the
// dead-man, the change source): each transition is recorded in the state
// store first and announced only if this server won it, so a restart or a
// second server on the same database never announces it twice.
import { fingerprint, type Alert, type AlertTransition, type Labels } from "./alert.js";
import type { AlertStateStore, StoredAlert } from "../store/alert-state.js";

/** A resolved alert stays listed this long (ms): Alertmanager is re-sent resolved alerts for as long, as Prometheus does. */
export const RESOLVED_KEEP_MS = 15 * 60_000;

export interface Announced extends AlertTransition {
  fingerprint: string;
}

export interface BookOptions {
  /** This server's name: the owner of the transitions it wins. */
  owner: string;
  store: AlertStateStore;
  nowMs: () => number;
  log: (line: string) => void;
  /** A transition this server won: its messages are this server's to send. */
  announce: (t: Announced) => void;
}

export interface FireRequest {
  labels: Labels;
  annotations: Labels;
  /** When the condition began (epoch ms); now if not given. */
  startsAtMs?: number;
  generatorUrl?: string;
}

const sameLabels = (a: Labels, b: Labels) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

export function toAlert(r: StoredAlert): Alert {
  return {
    labels: r.labels,
    annotations: r.annotations,
    startsAtMs: r.startsAtMs,
    endsAtMs: r.endsAtMs,
    generatorUrl: r.generatorUrl,
  };
}

export class AlertBook {
  private readonly firing = new Map<string, Alert>();
  private readonly resolved = new Map<string, Alert>();
  /** Ends not yet recorded (the store failed), by fingerprint. */
  private readonly unresolved = new Map<string, { labels: Labels; endsAtMs: number }>();
  /** Operations on one fingerprint run one after another (a fire and its resolve may be asked within one turn). */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly o: BookOptions) {}

  /** Loads what was firing when the server stopped; resolves with every stored row (the dispatcher finds what is still owed). */
  async restore(): Promise<StoredAlert[]> {
    const rows = await this.o.store.load();
    const now = this.o.nowMs();
    for (const r of rows) {
      if (r.endsAtMs === null) this.firing.set(r.fingerprint, toAlert(r));
      else if (now - r.endsAtMs < RESOLVED_KEEP_MS) this.resolved.set(r.fingerprint, toAlert(r));
    }
    return rows;
  }

  isFiring(fp: string): boolean {
    return this.firing.has(fp);
  }

  /** Firing alerts, and those resolved in the last RESOLVED_KEEP_MS (what Alertmanager is re-sent). */
  active(): { fingerprint: string; alert: Alert }[] {
    const now = this.o.nowMs();
    for (const [fp, a] of this.resolved) if (now - a.endsAtMs! >= RESOLVED_KEEP_MS) this.resolved.delete(fp);
    return [...this.firing, ...this.resolved].map(([fp, alert]) => ({ fingerprint: fp, alert }));
  }

  /** Level-triggered: asking again while it fires only refreshes its annotations. */
  fire(req: FireRequest): Promise<void> {
    const fp = fingerprint(req.labels);
    return this.serial(fp, async () => {
      const current = this.firing.get(fp);
      // Asked to fire again before an unrecorded end was retried: the episode goes on.
      this.unresolved.delete(fp);
      if (current !== undefined) {
        if (sameLabels(current.annotations, req.annotations)) return;
        this.firing.set(fp, { ...current, annotations: req.annotations });
        await this.o.store.annotate(fp, current.startsAtMs, req.annotations);
        return;
      }
      const now = this.o.nowMs();
      const { won, row } = await this.o.store.fire({
        fingerprint: fp,
        labels: req.labels,
        annotations: req.annotations,
        startsAtMs: req.startsAtMs ?? now,
        generatorUrl: req.generatorUrl ?? "",
        owner: this.o.owner,
        changedMs: now,
      });
      const alert = toAlert(row);
      this.firing.set(fp, alert);
      this.resolved.delete(fp);
      if (won) this.o.announce({ type: "firing", alert, fingerprint: fp });
    });
  }

  resolve(labels: Labels, endsAtMs?: number): Promise<void> {
    const fp = fingerprint(labels);
    return this.serial(fp, async () => {
      const current = this.firing.get(fp);
      if (current === undefined) return;
      const now = this.o.nowMs();
      const alert: Alert = { ...current, endsAtMs: Math.max(current.startsAtMs, endsAtMs ?? now) };
      let won: boolean;
      try {
        won = await this.o.store.resolve(fp, current.startsAtMs, alert.endsAtMs!, this.o.owner, now);
      } catch (err) {
        // Not recorded (the database is away): still firing here, and retried each cycle
        // (retryResolves), since the source that ended it will not say so again.
        this.unresolved.set(fp, { labels, endsAtMs: alert.endsAtMs! });
        throw err;
      }
      this.unresolved.delete(fp);
      this.firing.delete(fp);
      this.resolved.set(fp, alert);
      if (won) this.o.announce({ type: "resolved", alert, fingerprint: fp });
    });
  }

  /** Ends that could not be recorded, tried again (the scheduler calls this each cycle). */
  async retryResolves(): Promise<void> {
    for (const { labels, endsAtMs } of [...this.unresolved.values()]) await this.resolve(labels, endsAtMs);
  }

  /**
   * Another server on the database may have resolved (or restarted) what this
   * one still holds as firing: forget those, so the next assertion starts a
   * new episode if the condition still holds here.
   */
  async reconcile(): Promise<void> {
    const before = [...this.firing];
    const stored = new Map((await this.o.store.load()).map((r) => [r.fingerprint, r]));
    for (const [fp, seen] of before)
      await this.serial(fp, async () => {
        const r = stored.get(fp);
        // Only what was held before the load and is unchanged since: a newer episode is not the stale one.
        if (
          this.firing.get(fp) === seen &&
          (r === undefined || r.endsAtMs !== null || r.startsAtMs !== seen.startsAtMs)
        )
          this.firing.delete(fp);
      });
  }

  private serial(fp: string, work: () => Promise<void>): Promise<void> {
    const prev = this.chains.get(fp) ?? Promise.resolve();
    const next = prev
      .then(work)
      .catch((err: Error) => this.o.log(`alerts: could not record alert ${fp}: ${err.message}`));
    this.chains.set(fp, next);
    void next.then(() => {
      if (this.chains.get(fp) === next) this.chains.delete(fp);
    });
    return next;
  }
}
