// A deployment simulated second by second for the health monitor: pages
// (clients) probing servers at 1 Hz with three methods, this server's own
// probe of its peers, pings towards the pages; what each probe yields is the
// scenario's. Reports and health notes arrive as the page would send them.
import type { Incident } from "../../shared/contract/incidents.js";
import type { IncidentEvent } from "../../server/health/feed.js";
import { createHealthMonitor, type HealthMonitor, type IncidentSink } from "../../server/health/monitor.js";
import type { IngestedSample } from "../../server/ingest/read-batch.js";

export const T0 = Date.UTC(2026, 10, 30, 5, 14, 0);
const METHODS = ["xhr", "jsonp", "ws"] as const;

export interface Probe {
  outcome: "ok" | "timeout" | "error";
  ms: number | null;
  lateMs?: number;
  hidden?: boolean;
  reason?: string;
}

export const ok = (ms: number, extra: Partial<Probe> = {}): Probe => ({ outcome: "ok", ms, ...extra });
export const refused = (): Probe => ({ outcome: "error", ms: null, reason: "network" });
export const timedOut = (extra: Partial<Probe> = {}): Probe => ({ outcome: "timeout", ms: 5000, ...extra });

export interface Scenario {
  clients: string[];
  targets: string[];
  /** What client c's probe of target with method m yields at second s. */
  probe(c: string, target: string, method: string, s: number): Probe;
  /** This server's own probe of a peer (null: it does not probe it). */
  peer?(target: string, method: "peerhttp" | "peerws", s: number): Probe | null;
  /** The ping towards client c at second s (null: none). */
  ping?(c: string, s: number): Probe | null;
  /** Health notes: sent when a probe of that target failed in the last 15 s, as the page does. Default true. */
  notes?: boolean;
}

export class MemorySink implements IncidentSink {
  readonly rows = new Map<string, Incident>();
  async saveIncident(i: Incident): Promise<void> {
    this.rows.set(i.id, structuredClone(i));
  }
  async openIncidents(observer: string): Promise<Incident[]> {
    return [...this.rows.values()].filter((i) => i.end === null && i.observer === observer);
  }
}

export interface Sim {
  monitor: HealthMonitor;
  events: IncidentEvent[];
  /** When (the simulated server clock) each event was emitted. */
  eventAtMs: number[];
  sink: MemorySink;
  nowMs(): number;
  /** Runs seconds [from, to) of the scenario, judging once a second. */
  run(from: number, to: number): void;
}

export function simulate(sc: Scenario, sink = new MemorySink(), observer = "A"): Sim {
  let now = T0;
  const monitor = createHealthMonitor({
    observer,
    nowMs: () => now,
    log: () => {},
    targets: () => sc.targets.filter((t) => t !== observer),
    publicId: (c) => `pub_${c}`,
    incidents: sink,
    evaluateMs: 0,
  });
  const events: IncidentEvent[] = [];
  const eventAtMs: number[] = [];
  monitor.subscribe((e) => {
    events.push(e);
    eventAtMs.push(now);
  });
  const seq = new Map<string, number>();
  const pending = new Map<string, IngestedSample[]>();
  const lastFailure = new Map<string, number>();
  return {
    monitor,
    events,
    eventAtMs,
    sink,
    nowMs: () => now,
    run(from, to) {
      for (let s = from; s < to; s++) {
        for (const c of sc.clients) {
          const note: IngestedSample[] = [];
          for (const target of sc.targets)
            for (const [k, method] of METHODS.entries()) {
              const p = sc.probe(c, target, method, s);
              const n = seq.get(c) ?? 0;
              seq.set(c, n + 1);
              const sample: IngestedSample = {
                seq: n,
                t: T0 + s * 1000 + k * 120,
                method,
                target,
                outcome: p.outcome,
                ms: p.ms,
                lateMs: p.lateMs ?? 0,
                hidden: p.hidden === true,
                froze: false,
                serverMs: null,
                reason: p.reason ?? null,
              };
              (pending.get(c) ?? pending.set(c, []).get(c)!).push(sample);
              const key = `${c} ${target}`;
              if (p.outcome !== "ok") lastFailure.set(key, s);
              if (sc.notes !== false && lastFailure.has(key) && s - lastFailure.get(key)! <= 15) note.push(sample);
            }
          const ping = sc.ping?.(c, s) ?? null;
          if (ping !== null) {
            const n = seq.get(c) ?? 0;
            seq.set(c, n + 1);
            pending.get(c)!.push({
              seq: n,
              t: T0 + s * 1000 + 500,
              method: "ping",
              target: observer,
              outcome: ping.outcome,
              ms: ping.ms,
              lateMs: null,
              hidden: false,
              froze: false,
              serverMs: null,
              reason: null,
            });
          }
          now = T0 + s * 1000 + 700;
          if (note.length > 0)
            monitor.onNote(
              c,
              `session_${c}`,
              note.map((x) => ({
                seq: x.seq,
                t: x.t,
                method: x.method as "xhr",
                target: x.target,
                outcome: x.outcome,
                ms: x.ms,
                ...(x.lateMs !== null ? { lateMs: x.lateMs } : {}),
                ...(x.hidden ? { hidden: true } : {}),
                ...(x.reason !== null ? { reason: x.reason as "network" } : {}),
              })),
            );
          // A report every 5 s, as the outbox sends one.
          if (s % 5 === 4) {
            monitor.onReport({ clientId: c, sessionId: `session_${c}`, samples: pending.get(c)! });
            pending.set(c, []);
          }
        }
        for (const target of sc.targets)
          for (const [k, method] of (["peerhttp", "peerws"] as const).entries()) {
            const p = sc.peer?.(target, method, s) ?? null;
            if (p === null) continue;
            monitor.onPeerProbe({
              t: T0 + s * 1000 + k * 500,
              method,
              target,
              outcome: p.outcome,
              ms: p.ms,
              lateMs: null,
              hidden: false,
              froze: false,
              serverMs: null,
              reason: p.reason ?? null,
            });
          }
        now = T0 + s * 1000 + 900;
        monitor.evaluate();
      }
    },
  };
}
