// Incidents opened and closed from the judgements, with hysteresis: a target
// must stay down or degraded OPEN_AFTER_MS before an incident opens, and
// better than its kind CLOSE_AFTER_MS before it closes. A degraded incident
// that turns into an outage is closed and a down incident opened, so an
// outage always opens an incident of its own (what the alerts page on).
import type { Incident, IncidentPeak } from "../../shared/contract/incidents.js";
import type { HealthState, IncidentEvent, TargetHealth } from "./feed.js";
import type { Judgement } from "./judge.js";
import { CLOSE_AFTER_MS, OPEN_AFTER_MS, PEAK_WRITE_MS, UNKNOWN_CLOSE_AFTER_MS } from "./rules.js";
import { incidentSummary } from "./summary.js";

export interface TrackerOptions {
  observer: string;
  /** Public id of a client, for incidents (a clientId never leaves the server). */
  publicId(clientId: string): string;
  /** Called with every event, in order. */
  emit(e: IncidentEvent): void;
  /** Writes an incident as it is now (insert or replace by id). */
  save(incident: Incident): void;
}

interface Track {
  pendingSinceMs: number | null;
  /** The earliest start of trouble seen while pending. */
  pendingStartT: number | null;
  /** Since when (server clock) it has been judged down: an outage must hold OPEN_AFTER_MS of its own to replace a degradation. */
  downSinceMs: number | null;
  open: Incident | null;
  /** Since when (server clock) the target has been better than the open incident's kind. */
  clearSinceMs: number | null;
  /** When it was fine again (the prober's clock), once known. */
  clearGoodT: number | null;
  lastSavedMs: number;
  /** What an "updated" event is sent for when it changes. */
  shown: string;
  /** For states(): the judged state when no incident is open, and since when. */
  state: HealthState;
  sinceMs: number;
}

/** Affected clients an incident names at most (its summary counts them all). */
export const INCIDENT_CLIENTS_MAX = 100;

const worse = (a: HealthState, kind: Incident["kind"]) => a === kind || (kind === "degraded" && a === "down");

function peakOf(j: Judgement): IncidentPeak {
  let failureShare = 0;
  let latencyMs: number | null = null;
  let typicalMs: number | null = null;
  for (const v of j.affected) {
    failureShare = Math.max(failureShare, v.judged === 0 ? 0 : v.failed / v.judged);
    if (v.slow > 0 && v.medianMs !== null && (latencyMs === null || v.medianMs > latencyMs)) {
      latencyMs = v.medianMs;
      typicalMs = v.typicalMs;
    }
  }
  return { affected: j.affected.length, reporting: j.reporting.length, failureShare, latencyMs, typicalMs };
}

function worsePeak(a: IncidentPeak, b: IncidentPeak): IncidentPeak {
  const latest = b.affected >= a.affected ? b : a;
  const slower = (b.latencyMs ?? -1) > (a.latencyMs ?? -1) ? b : a;
  return {
    affected: latest.affected,
    reporting: latest.reporting,
    failureShare: Math.max(a.failureShare, b.failureShare),
    latencyMs: slower.latencyMs,
    typicalMs: slower.typicalMs,
  };
}

export class IncidentTracker {
  private readonly tracks = new Map<string, Track>();

  constructor(private readonly o: TrackerOptions) {}

  /** Open incidents found in the store at start (this observer's): followed as if never interrupted. */
  adopt(incidents: readonly Incident[], nowMs: number): void {
    for (const incident of incidents) {
      if (incident.end !== null || incident.observer !== this.o.observer) continue;
      const t = this.track(incident.target, nowMs);
      t.open = incident;
      t.shown = this.shownOf(incident);
    }
  }

  /** Every target judged (or with an open incident) and its state: an open incident's kind, else the judged state. */
  states(): TargetHealth[] {
    return [...this.tracks].map(([target, t]) =>
      t.open !== null
        ? { target, state: t.open.kind, sinceMs: t.open.start }
        : { target, state: t.state === "unknown" ? "unknown" : "up", sinceMs: t.sinceMs },
    );
  }

  openIncidents(): Incident[] {
    return [...this.tracks.values()].flatMap((t) => (t.open === null ? [] : [t.open]));
  }

  step(j: Judgement, nowMs: number): void {
    const t = this.track(j.target, nowMs);
    const calm: HealthState = j.state === "unknown" ? "unknown" : "up";
    if (t.open === null && calm !== t.state) {
      t.state = calm;
      t.sinceMs = calm === "up" ? (j.recoveredT ?? nowMs) : nowMs;
    }
    const bad = j.state === "down" || j.state === "degraded";
    if (!bad) {
      t.pendingSinceMs = null;
      t.pendingStartT = null;
    } else {
      t.pendingSinceMs ??= nowMs;
      if (j.startT !== null) t.pendingStartT = Math.min(t.pendingStartT ?? j.startT, j.startT);
    }
    t.downSinceMs = j.state === "down" ? (t.downSinceMs ?? nowMs) : null;
    const pendingLongEnough = t.pendingSinceMs !== null && nowMs - t.pendingSinceMs >= OPEN_AFTER_MS;

    if (t.open !== null) {
      const open = t.open;
      if (open.kind === "degraded" && t.downSinceMs !== null && nowMs - t.downSinceMs >= OPEN_AFTER_MS) {
        this.close(t, j.startT ?? nowMs);
        // The outage starts with its own first failure, not with the degradation before it.
        t.pendingStartT = j.startT;
        this.openFor(t, j, nowMs);
        return;
      }
      if (worse(j.state, open.kind)) {
        t.clearSinceMs = null;
        t.clearGoodT = null;
        this.update(t, j, nowMs);
        return;
      }
      t.clearSinceMs ??= nowMs;
      if (j.recoveredT !== null) t.clearGoodT ??= j.recoveredT;
      const wait = j.state === "unknown" ? UNKNOWN_CLOSE_AFTER_MS : CLOSE_AFTER_MS;
      if (nowMs - t.clearSinceMs >= wait) {
        if (j.state === "unknown") open.evidence = [...open.evidence, "no source reported on it any more"];
        this.close(t, t.clearGoodT ?? t.clearSinceMs);
      }
      return;
    }
    if (bad && pendingLongEnough) this.openFor(t, j, nowMs);
  }

  private track(target: string, nowMs: number): Track {
    let t = this.tracks.get(target);
    if (t === undefined) {
      t = {
        pendingSinceMs: null,
        pendingStartT: null,
        downSinceMs: null,
        open: null,
        clearSinceMs: null,
        clearGoodT: null,
        lastSavedMs: 0,
        shown: "",
        state: "unknown",
        sinceMs: nowMs,
      };
      this.tracks.set(target, t);
    }
    return t;
  }

  private shownOf(i: Incident): string {
    return JSON.stringify([i.kind, i.verdict, i.clients, i.methods]);
  }

  private openFor(t: Track, j: Judgement, nowMs: number): void {
    const kind = j.state === "down" ? "down" : "degraded";
    const start = Math.min(t.pendingStartT ?? j.startT ?? nowMs, j.startT ?? nowMs);
    const incident: Incident = {
      id: `${this.o.observer}.${j.target}.${kind}.${start}`,
      target: j.target,
      kind,
      start,
      end: null,
      verdict: j.verdict,
      summary: incidentSummary(j, kind, start),
      methods: j.methods,
      clients: j.clients.slice(0, INCIDENT_CLIENTS_MAX).map((c) => this.o.publicId(c)),
      evidence: j.evidence,
      peak: peakOf(j),
      observer: this.o.observer,
    };
    t.open = incident;
    t.clearSinceMs = null;
    t.clearGoodT = null;
    t.pendingSinceMs = null;
    t.pendingStartT = null;
    t.shown = this.shownOf(incident);
    t.lastSavedMs = nowMs;
    this.o.save(incident);
    this.o.emit({ type: "opened", incident: { ...incident } });
  }

  private update(t: Track, j: Judgement, nowMs: number): void {
    const i = t.open!;
    i.verdict = j.verdict;
    i.summary = incidentSummary(j, i.kind, i.start);
    i.methods = [...new Set([...i.methods, ...j.methods])].sort();
    i.clients = [...new Set([...i.clients, ...j.clients.map((c) => this.o.publicId(c))])]
      .sort()
      .slice(0, INCIDENT_CLIENTS_MAX);
    i.evidence = j.evidence;
    i.peak = worsePeak(i.peak, peakOf(j));
    const shown = this.shownOf(i);
    if (shown !== t.shown) {
      t.shown = shown;
      t.lastSavedMs = nowMs;
      this.o.save(i);
      this.o.emit({ type: "updated", incident: { ...i } });
    } else if (nowMs - t.lastSavedMs >= PEAK_WRITE_MS) {
      t.lastSavedMs = nowMs;
      this.o.save(i);
    }
  }

  private close(t: Track, endMs: number): void {
    const i = t.open!;
    i.end = Math.max(i.start, endMs);
    t.open = null;
    t.clearSinceMs = null;
    t.clearGoodT = null;
    t.state = "up";
    t.sinceMs = i.end;
    this.o.save(i);
    this.o.emit({ type: "closed", incident: { ...i } });
  }
}
