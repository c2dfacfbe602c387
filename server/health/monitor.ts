// The health monitor: takes in every probe this server hears of (its pages'
// reports, their health notes, its own probes of its peers), judges every
// target once a second (view.ts, judge.ts) and opens and closes incidents
// (tracker.ts), which it stores and announces. It is the HealthFeed.
import type { Incident } from "../../shared/contract/incidents.js";
import { performance } from "node:perf_hooks";
import type { HealthNoteSample } from "../../shared/contract/ws.js";
import { seriesKey } from "../../shared/forensics/attribution.js";
import type { IngestDigest } from "../ingest/read-batch.js";
import { SLICE_MS } from "../store/pace.js";
import { Evidence, failedOutcome, firstAtOrAfter, type Observation, type ObservationWindow } from "./evidence.js";
import type { HealthFeed, IncidentEvent, TargetHealth } from "./feed.js";
import { judge, type PingView } from "./judge.js";
import { CURRENT_LAG_MS, EVALUATE_MS, JUDGE_WINDOW_MS, PING_WINDOW_MS, STALE_MS } from "./rules.js";
import { IncidentTracker } from "./tracker.js";
import { isSlowAgainst, viewOf, type SourceView } from "./view.js";

/** Where incidents are kept (server/store/incidents.ts implements it per engine). */
export interface IncidentSink {
  /** Inserts or replaces the incident by id. */
  saveIncident(incident: Incident): Promise<void>;
  /** Incidents still open that this observer opened (to follow them on after a restart). */
  openIncidents(observer: string): Promise<Incident[]>;
}

export interface HealthMonitorOptions {
  /** This server's name. */
  observer: string;
  nowMs: () => number;
  log: (line: string) => void;
  /** The servers this server knows now: itself, its peers, and with PostgreSQL every server of the deployment. */
  targets: () => readonly string[];
  publicId: (clientId: string) => string;
  incidents?: IncidentSink | undefined;
  /** How often targets are judged (ms); tests step it themselves with 0. */
  evaluateMs?: number;
}

export interface HealthMonitor extends HealthFeed {
  /** A page's report was stored. */
  onReport(digest: IngestDigest): void;
  /** A page's health note arrived over its WebSocket (clientId and session from its hello). */
  onNote(clientId: string, sessionId: string, samples: readonly HealthNoteSample[]): void;
  /** One of this server's own probes of a peer settled. */
  onPeerProbe(o: Observation): void;
  /** Judges every target now (the timer does it every EVALUATE_MS). */
  evaluate(): void;
  /**
   * How long failed probes took to reach this server after they settled
   * (ms), by the way they came: the last FAILURE_LAGS_KEPT of each.
   */
  failureLags(): { note: number[]; report: number[] };
  /** Open incidents from the store have been adopted. */
  readonly ready: Promise<void>;
  stop(): void;
}

const isPair = (target: string) => target.includes("+");
/** Failure arrival lags kept per path (failureLags). */
const FAILURE_LAGS_KEPT = 200;

export function createHealthMonitor(o: HealthMonitorOptions): HealthMonitor {
  const evidence = new Evidence();
  const listeners = new Set<(e: IncidentEvent) => void>();
  const ownProbe = `peer:${o.observer}`;
  let saveFailing = false;
  const save = (incident: Incident) => {
    if (o.incidents === undefined) return;
    o.incidents.saveIncident({ ...incident }).then(
      () => {
        if (saveFailing) o.log("tailprobe: incidents are stored again");
        saveFailing = false;
      },
      (err: unknown) => {
        // Said once per failing stretch: the feed and the alerts go on meanwhile.
        if (!saveFailing) o.log(`tailprobe: incident ${incident.id} not stored: ${(err as Error).message}`);
        saveFailing = true;
      },
    );
  };
  const tracker = new IncidentTracker({
    observer: o.observer,
    publicId: o.publicId,
    save,
    emit: (e) => {
      o.log(`tailprobe: incident ${e.type}: ${e.incident.summary}${e.incident.end === null ? "" : " (over)"}`);
      for (const l of listeners) {
        try {
          l(e);
        } catch (err) {
          o.log(`tailprobe: a health listener failed: ${(err as Error).message}`);
        }
      }
    },
  });
  const ready = (o.incidents?.openIncidents(o.observer) ?? Promise.resolve([])).then(
    (open) => tracker.adopt(open, o.nowMs()),
    (err: unknown) => o.log(`tailprobe: open incidents not read: ${(err as Error).message}`),
  );

  const known = () => new Set([o.observer, ...o.targets()].filter((t) => !isPair(t)));
  const nameOf = (v: SourceView) => (v.kind === "peer" ? `${o.observer}'s own probe` : `client ${o.publicId(v.id)}`);

  /** A source's probes of every target since fromT, and their usual latencies by seriesKey. */
  function around(sourceId: string, fromT: number): { neighbours: Observation[]; typical: Record<string, number> } {
    const neighbours: Observation[] = [];
    const typical: Record<string, number> = {};
    for (const [target, w] of evidence.windowsOf(sourceId)) {
      for (let i = w.obs.length - 1; i >= 0 && w.obs[i]!.t >= fromT; i--) neighbours.push(w.obs[i]!);
      for (const [method, ms] of w.typicals()) typical[seriesKey(method, target)] = ms;
    }
    const pings = evidence.pingsOf(sourceId);
    if (pings !== undefined) {
      for (let i = pings.obs.length - 1; i >= 0 && pings.obs[i]!.t >= fromT; i--) neighbours.push(pings.obs[i]!);
      const ms = pings.typicalMs("ping");
      if (ms !== null) for (const p of neighbours) if (p.method === "ping") typical[seriesKey("ping", p.target)] = ms;
    }
    return { neighbours, typical };
  }

  function pingView(clientId: string): PingView | null {
    const w = evidence.pingsOf(clientId);
    if (w === undefined) return null;
    const fromT = w.newestT() - PING_WINDOW_MS;
    let judged = 0;
    let bad = 0;
    for (let i = firstAtOrAfter(w.obs, fromT); i < w.obs.length; i++) {
      const p = w.obs[i]!;
      judged++;
      if (failedOutcome(p.outcome) || isSlowAgainst(p, w.typicalMs("ping"))) bad++;
    }
    w.learn(fromT, bad === 0);
    return judged === 0
      ? null
      : { judged, bad, text: `ping to client ${o.publicId(clientId)}: ${bad} of ${judged} failed or slow` };
  }

  const current = (w: ObservationWindow, nowMs: number) =>
    w.lastReceivedMs >= nowMs - STALE_MS && w.newestT() + w.minLagMs() >= nowMs - CURRENT_LAG_MS;

  /**
   * One judging of every target, a step per source: the timer runs it in
   * slices of SLICE_MS with a turn of the event loop between them, so a
   * thousand pages' views never hold up an echo for long.
   */
  function* evaluation(): Generator<void, void, void> {
    const nowMs = o.nowMs();
    evidence.prune(nowMs);
    const targets = known();
    for (const t of evidence.targets()) if (!isPair(t)) targets.add(t);
    for (const i of tracker.openIncidents()) targets.add(i.target);
    for (const target of targets) {
      const views: SourceView[] = [];
      let silent = 0;
      for (const s of evidence.sources(target)) {
        if (!current(s.window, nowMs)) continue;
        const newest = s.window.newestT();
        const v = viewOf({
          id: s.id,
          window: s.window,
          around: () => around(s.id, newest - JUDGE_WINDOW_MS - 1000),
        });
        s.window.learn(newest - JUDGE_WINDOW_MS, v?.state === "up");
        if (v === null) silent++;
        else views.push(v);
        yield;
      }
      const j = judge({ target, observer: o.observer, views, silent, pings: pingView, name: nameOf });
      tracker.step(j, nowMs);
    }
  }

  /** Judges every target now, in one go (tests step the clock themselves). */
  function evaluate(): void {
    const steps = evaluation();
    while (!steps.next().done);
  }

  let running: Generator<void, void, void> | null = null;
  const drive = () => {
    const startMs = performance.now();
    while (running !== null) {
      if (running.next().done) {
        running = null;
        return;
      }
      if (performance.now() - startMs >= SLICE_MS) {
        setImmediate(drive);
        return;
      }
    }
  };

  const lags = { note: [] as number[], report: [] as number[] };
  const noteLag = (via: "note" | "report", obs: Observation, receivedMs: number) => {
    if (!failedOutcome(obs.outcome)) return;
    const kept = lags[via];
    kept.push(receivedMs - (obs.t + (obs.outcome === "timeout" ? (obs.ms ?? 0) : 0)));
    if (kept.length > FAILURE_LAGS_KEPT) kept.shift();
  };

  // A judging still running when the next is due (a very large deployment on a busy machine) is left to finish.
  const tick = () => {
    if (running !== null) return;
    running = evaluation();
    drive();
  };
  const timer = (o.evaluateMs ?? EVALUATE_MS) > 0 ? setInterval(tick, o.evaluateMs ?? EVALUATE_MS) : undefined;
  timer?.unref();

  return {
    onReport(d) {
      const receivedMs = o.nowMs();
      let maxSeq = -1;
      for (const s of d.samples) {
        maxSeq = Math.max(maxSeq, s.seq);
        const obs: Observation = { ...s };
        const identity = { session: d.sessionId, seq: s.seq, via: "report" } as const;
        if (evidence.add({ id: d.clientId, kind: "client" }, obs, receivedMs, identity))
          noteLag("report", obs, receivedMs);
      }
      if (maxSeq >= 0) evidence.reported(d.sessionId, maxSeq);
    },
    onNote(clientId, sessionId, samples) {
      const receivedMs = o.nowMs();
      const targets = known();
      for (const s of samples) {
        if (!targets.has(s.target)) continue;
        const obs: Observation = {
          t: s.t,
          method: s.method,
          target: s.target,
          outcome: s.outcome,
          ms: s.ms,
          lateMs: s.lateMs ?? null,
          hidden: s.hidden === true,
          froze: s.froze === true,
          serverMs: s.serverMs ?? null,
          reason: s.reason ?? null,
        };
        const identity = { session: sessionId, seq: s.seq, via: "note" } as const;
        if (evidence.add({ id: clientId, kind: "client" }, obs, receivedMs, identity)) noteLag("note", obs, receivedMs);
      }
    },
    onPeerProbe(obs) {
      evidence.add({ id: ownProbe, kind: "peer" }, obs, o.nowMs());
    },
    evaluate,
    ready,
    failureLags: () => ({ note: [...lags.note], report: [...lags.report] }),
    states(): readonly TargetHealth[] {
      const seen = tracker.states();
      const out = seen.filter((s) => !isPair(s.target));
      const nowMs = o.nowMs();
      for (const t of known())
        if (!out.some((s) => s.target === t)) out.push({ target: t, state: "unknown", sinceMs: nowMs });
      return out.sort((a, b) => a.target.localeCompare(b.target));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop() {
      clearInterval(timer);
      running = null;
      listeners.clear();
    },
  };
}
