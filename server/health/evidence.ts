// What the health monitor has seen, per target and source: each client's
// recent probes of each server (from its reports and health notes, one
// sample once however it arrived), the server's own probes of its peers,
// and pings towards each client. Bounded in time (RETAIN_MS) and size.
import type { Outcome } from "../../shared/methods.js";
import { AHEAD_MS_MAX, RETAIN_MS, TYPICAL_KEPT, TYPICAL_MIN, WINDOW_OBS_MAX } from "./rules.js";

/** One probe (or ping) as the monitor judges it. t is the prober's clock (a page's for its probes). */
export interface Observation {
  t: number;
  method: string;
  /** The probed server; for a ping, the server that pinged. */
  target: string;
  outcome: Outcome;
  ms: number | null;
  lateMs: number | null;
  hidden: boolean;
  froze: boolean;
  serverMs: number | null;
  /** Why it failed (the sample's reason), when it did. */
  reason: string | null;
}

/** Index of the first observation at or after t (obs in time order): windows are read from their end, never walked whole. */
export function firstAtOrAfter(obs: readonly Observation[], t: number): number {
  let lo = 0;
  let hi = obs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (obs[mid]!.t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Observations a window may hold beyond WINDOW_OBS_MAX before its oldest are dropped down to it. */
const WINDOW_TRIM_SLACK = 512;

/** Arrival lags remembered per window (minLagMs). */
const LAGS_KEPT = 32;

/** A client (its pages), or this server's own probe of its peers. */
export type SourceKind = "client" | "peer";

export const failedOutcome = (o: Outcome): boolean => o === "timeout" || o === "error";

/**
 * The latency the page's user felt (ms): the probe's own, plus how late its
 * tick fired. A tab whose main thread is busy sends late and reads its
 * answers on time as often as not; its user waits for both. null with no latency.
 */
export const feltMs = (o: Observation): number | null => (o.ms === null ? null : o.ms + (o.lateMs ?? 0));

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** One source's recent probes of one target, in time order, and its usual latency per method. */
export class ObservationWindow {
  /** Observations in time order (pending ones merged in first). */
  private sorted: Observation[] = [];
  /**
   * Observations that came earlier than the newest kept: tabs of one client
   * whose batches overlap in time. Merged in once, when the window is read
   * or must be trimmed: put in their place one at a time, a flood of them
   * moved half the window each (ingest from one client at 300,000 samples/s
   * spent most of its time there).
   */
  private pending: Observation[] = [];
  /** Server clock (epoch ms) of the last observation received. */
  lastReceivedMs = 0;
  private readonly typical = new Map<string, number[]>();
  /** typicalMs's answers until the next observation is learned: judging a window asks it for every probe. */
  private readonly medians = new Map<string, number | null>();
  private readonly lags: number[] = [];
  private lagAt = 0;
  /** Observations up to this t have been considered for the usual latencies. */
  private learnedUpToT = Number.NEGATIVE_INFINITY;

  constructor(readonly kind: SourceKind) {}

  /** The observations in time order. */
  get obs(): Observation[] {
    if (this.pending.length > 0) this.settle();
    return this.sorted;
  }

  insert(o: Observation, receivedMs: number): void {
    this.lastReceivedMs = Math.max(this.lastReceivedMs, receivedMs);
    this.lags[this.lagAt++ % LAGS_KEPT] = receivedMs - o.t;
    const sorted = this.sorted;
    // Nearly always appended: a report brings what notes did not, in order.
    if (sorted.length === 0 || sorted[sorted.length - 1]!.t <= o.t) sorted.push(o);
    else this.pending.push(o);
    // The oldest go a slack's worth at a time (one at a time moved the whole window on every insert).
    if (sorted.length + this.pending.length > WINDOW_OBS_MAX + WINDOW_TRIM_SLACK) {
      const obs = this.obs;
      obs.splice(0, obs.length - WINDOW_OBS_MAX);
    }
  }

  /** Merges the pending observations in, each after those of its time already kept. */
  private settle(): void {
    const late = this.pending.sort((a, b) => a.t - b.t);
    this.pending = [];
    const kept = this.sorted;
    const out: Observation[] = new Array(kept.length + late.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < kept.length && j < late.length) out[k++] = kept[i]!.t <= late[j]!.t ? kept[i++]! : late[j++]!;
    while (i < kept.length) out[k++] = kept[i++]!;
    while (j < late.length) out[k++] = late[j++]!;
    this.sorted = out;
  }

  /**
   * How far behind the server's clock this source's probes arrive at best
   * (ms): transit and batching, plus the prober's clock offset. newestT()
   * plus it is the newest probe in the server's time: a page's backlog
   * delivered late is old news, not the present.
   */
  minLagMs(): number {
    let min = Number.POSITIVE_INFINITY;
    for (const lag of this.lags) min = Math.min(min, lag);
    return Number.isFinite(min) ? min : 0;
  }

  newestT(): number {
    return this.obs[this.obs.length - 1]?.t ?? Number.NEGATIVE_INFINITY;
  }

  /** The usual felt latency of this method (ms): the median of those learned while the view was up; null until enough. */
  typicalMs(method: string): number | null {
    let m = this.medians.get(method);
    if (m === undefined) {
      const kept = this.typical.get(method);
      m = kept === undefined || kept.length < TYPICAL_MIN ? null : median(kept);
      this.medians.set(method, m);
    }
    return m;
  }

  /** Every method's usual latency that is known. */
  typicals(): Map<string, number> {
    const out = new Map<string, number>();
    for (const method of this.typical.keys()) {
      const ms = this.typicalMs(method);
      if (ms !== null) out.set(method, ms);
    }
    return out;
  }

  /**
   * Observations that have left the judging window (t ≤ upToT) become usual
   * latencies if the view was up when they left it; an incident's slow
   * probes never teach the monitor that slow is usual.
   */
  learn(upToT: number, up: boolean): void {
    for (let i = firstAtOrAfter(this.obs, this.learnedUpToT + 1); i < this.obs.length; i++) {
      const o = this.obs[i]!;
      if (o.t > upToT) break;
      const ms = feltMs(o);
      if (!up || o.outcome !== "ok" || ms === null || o.hidden || o.froze) continue;
      let kept = this.typical.get(o.method);
      if (kept === undefined) this.typical.set(o.method, (kept = []));
      kept.push(ms);
      if (kept.length > TYPICAL_KEPT) kept.shift();
      this.medians.delete(o.method);
    }
    this.learnedUpToT = Math.max(this.learnedUpToT, upToT);
  }

  /** Drops what is older than RETAIN_MS before the newest observation. */
  prune(): void {
    const oldest = this.newestT() - RETAIN_MS;
    let drop = 0;
    while (drop < this.obs.length && this.obs[drop]!.t < oldest) drop++;
    if (drop > 0) this.obs.splice(0, drop);
  }
}

interface SessionSeen {
  /** Every seq up to this one came in a report. */
  reportedMaxSeq: number;
  /** Seqs that came in notes and not yet in a report. */
  noted: Set<number>;
  lastMs: number;
}

/** Seqs remembered per session from notes (a page notes only while a server fails). */
const NOTED_MAX = 4096;

export interface Source {
  id: string;
  kind: SourceKind;
  window: ObservationWindow;
}

export class Evidence {
  /** target → source id → its window. */
  private readonly byTarget = new Map<string, Map<string, ObservationWindow>>();
  /** The same windows by source id → target. */
  private readonly bySource = new Map<string, Map<string, ObservationWindow>>();
  /** client id → pings towards it (from any server of the deployment). */
  private readonly pings = new Map<string, ObservationWindow>();
  /**
   * Per session, what was seen already, so a sample counts once whether a
   * note or a report brought it: a page reports a session's samples in seq
   * order (a redelivery goes back to seqs at or below the highest), and notes
   * go before the report that carries the same samples.
   */
  private readonly seen = new Map<string, SessionSeen>();

  /**
   * Takes one observation; false when it was seen already (same session and
   * seq) or is dated too far ahead of the server's clock.
   */
  add(
    source: { id: string; kind: SourceKind },
    o: Observation,
    receivedMs: number,
    identity?: { session: string; seq: number; via: "note" | "report" },
  ): boolean {
    if (o.t > receivedMs + AHEAD_MS_MAX) return false;
    if (identity !== undefined && !this.firstTime(identity, receivedMs)) return false;
    if (o.method === "ping") {
      let w = this.pings.get(source.id);
      if (w === undefined) this.pings.set(source.id, (w = new ObservationWindow(source.kind)));
      w.insert(o, receivedMs);
      return true;
    }
    let sources = this.byTarget.get(o.target);
    if (sources === undefined) this.byTarget.set(o.target, (sources = new Map()));
    let w = sources.get(source.id);
    if (w === undefined) {
      sources.set(source.id, (w = new ObservationWindow(source.kind)));
      let mine = this.bySource.get(source.id);
      if (mine === undefined) this.bySource.set(source.id, (mine = new Map()));
      mine.set(o.target, w);
    }
    w.insert(o, receivedMs);
    return true;
  }

  private firstTime(id: { session: string; seq: number; via: "note" | "report" }, receivedMs: number): boolean {
    let seen = this.seen.get(id.session);
    if (seen === undefined) this.seen.set(id.session, (seen = { reportedMaxSeq: -1, noted: new Set(), lastMs: 0 }));
    seen.lastMs = receivedMs;
    if (id.seq <= seen.reportedMaxSeq) return false;
    if (id.via === "note") {
      if (seen.noted.has(id.seq)) return false;
      if (seen.noted.size >= NOTED_MAX) seen.noted.delete(seen.noted.values().next().value!);
      seen.noted.add(id.seq);
      return true;
    }
    return !seen.noted.delete(id.seq);
  }

  /** A report of this session was read: its seqs up to the highest are settled (called after its samples were added). */
  reported(session: string, maxSeq: number): void {
    const seen = this.seen.get(session);
    if (seen === undefined) return;
    seen.reportedMaxSeq = Math.max(seen.reportedMaxSeq, maxSeq);
    for (const seq of seen.noted) if (seq <= seen.reportedMaxSeq) seen.noted.delete(seq);
  }

  targets(): string[] {
    return [...this.byTarget.keys()];
  }

  sources(target: string): Source[] {
    return [...(this.byTarget.get(target) ?? new Map<string, ObservationWindow>())].map(([id, window]) => ({
      id,
      kind: window.kind,
      window,
    }));
  }

  /** A source's windows of every target: its other probes around one (attribution's neighbours) and their usual latencies. */
  windowsOf(sourceId: string): ReadonlyMap<string, ObservationWindow> {
    return this.bySource.get(sourceId) ?? new Map<string, ObservationWindow>();
  }

  pingsOf(clientId: string): ObservationWindow | undefined {
    return this.pings.get(clientId);
  }

  /** Forgets what is older than RETAIN_MS, and sources not heard from for as long. */
  prune(nowMs: number): void {
    const gone = nowMs - RETAIN_MS;
    for (const [target, sources] of this.byTarget) {
      for (const [id, w] of sources) {
        if (w.lastReceivedMs >= gone) {
          w.prune();
          continue;
        }
        sources.delete(id);
        const mine = this.bySource.get(id);
        mine?.delete(target);
        if (mine?.size === 0) this.bySource.delete(id);
      }
      if (sources.size === 0) this.byTarget.delete(target);
    }
    for (const [id, w] of this.pings) {
      if (w.lastReceivedMs < gone) this.pings.delete(id);
      else w.prune();
    }
    for (const [session, seen] of this.seen) if (seen.lastMs < gone) this.seen.delete(session);
  }
}
