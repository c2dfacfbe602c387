// One source's view of one target: from its probes of the last few seconds
// (JUDGE_WINDOW_MS up to its newest), is the target up, degraded or down for
// it, since when, and, if slow, why (the attribution rules). Pure.
import { attribute, seriesKey, type Cause, type ForensicSample } from "../../shared/forensics/attribution.js";
import { feltMs, firstAtOrAfter, type Observation, type ObservationWindow, type SourceKind } from "./evidence.js";
import {
  DEGRADED_FAILURE_SHARE,
  DOWN_RUN_MIN,
  JUDGE_WINDOW_MS,
  JUDGED_MIN,
  SLOW_EXCESS_MS_MIN,
  SLOW_OK_MIN,
  SLOW_RATIO,
  SLOW_SHARE,
} from "./rules.js";

export type ViewState = "up" | "degraded" | "down";

/** How far back (ms) a trailing run of good probes is read: twice the judging window is past any close. */
const GOOD_RUN_MS_MAX = 2 * JUDGE_WINDOW_MS;

export interface SourceView {
  id: string;
  kind: SourceKind;
  state: ViewState;
  /** Probes judged in the window (frozen pages', and hidden tabs' timeouts and latencies, are not). */
  judged: number;
  failed: number;
  /** ok probes whose latency was judged, and how many of them were slow. */
  timed: number;
  slow: number;
  /** First failing or slow probe of the trouble now (for down: the whole run of failures, however long). */
  badSinceT: number | null;
  /** First probe of the trailing run of good ones; null when the newest is bad. */
  goodSinceT: number | null;
  newestT: number;
  /** Methods with a failure or a slow probe in the window. */
  methods: string[];
  /** Median of the judged ok latencies as felt (evidence.ts feltMs), and the usual one of the slowest method (ms). */
  medianMs: number | null;
  typicalMs: number | null;
  /** How the failures ended, e.g. "xhr error network" (distinct, in order). */
  failures: string[];
  /** Why the slowest slow probe was slow (attribution), when the view is slow rather than failing. */
  cause: Cause | null;
  causeText: string | null;
}

/** Whether the probe counts, and as what: hidden tabs' timeouts and latencies are their throttling's, not the server's. */
function judgedAs(o: Observation): "ok" | "failed" | null {
  if (o.froze) return null;
  if (o.outcome === "ok") return "ok";
  if (o.outcome === "error") return "failed";
  if (o.outcome === "timeout") return o.hidden ? null : "failed";
  return null;
}

/** Slow against its usual felt latency (evidence.ts feltMs), by the attribution rules' thresholds. */
export function isSlowAgainst(o: Observation, typicalMs: number | null): boolean {
  const ms = feltMs(o);
  if (o.outcome !== "ok" || ms === null || o.hidden || typicalMs === null) return false;
  return ms >= typicalMs * SLOW_RATIO && ms - typicalMs >= SLOW_EXCESS_MS_MIN;
}

const medianOf = (xs: number[]): number | null =>
  xs.length === 0 ? null : [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** The observation as the attribution rules read it, with the latency its user felt (so a late tick explains it). */
function forensic(o: Observation): ForensicSample {
  return {
    method: o.method,
    target: o.target,
    t: o.t,
    ms: feltMs(o),
    outcome: o.outcome,
    lateMs: o.lateMs,
    visibleAtSend: !o.hidden,
    visibleAtReply: !o.hidden,
    hiddenMs: o.hidden ? 1 : 0,
    froze: o.froze,
    fresh: null,
    serverMs: o.serverMs,
    serverLagMs: null,
  };
}

export interface ViewInput {
  id: string;
  window: ObservationWindow;
  /** The source's probes of every target around (attribution's neighbours), with their usual latencies by seriesKey; asked only when slow. */
  around(): { neighbours: readonly Observation[]; typical: Readonly<Record<string, number>> };
}

/** The source's view, or null when it judged too few probes to have one. */
export function viewOf(input: ViewInput): SourceView | null {
  const w = input.window;
  const newestT = w.newestT();
  const fromT = newestT - JUDGE_WINDOW_MS;
  let judged = 0;
  let failed = 0;
  let timed = 0;
  let slow = 0;
  let badSinceT: number | null = null;
  const methods = new Set<string>();
  const failures = new Set<string>();
  const latencies: number[] = [];
  let slowest: Observation | null = null;
  let slowestTypical: number | null = null;
  const isBad = (o: Observation) => judgedAs(o) === "failed" || isSlowAgainst(o, w.typicalMs(o.method));
  const windowStart = firstAtOrAfter(w.obs, fromT);
  for (let i = windowStart; i < w.obs.length; i++) {
    const o = w.obs[i]!;
    const as = judgedAs(o);
    if (as === null) continue;
    judged++;
    if (as === "failed") {
      failed++;
      methods.add(o.method);
      failures.add(`${o.method} ${o.outcome}${o.reason === null ? "" : ` ${o.reason}`}`);
      badSinceT ??= o.t;
      continue;
    }
    const ms = feltMs(o);
    if (o.hidden || ms === null) continue;
    const typical = w.typicalMs(o.method);
    latencies.push(ms);
    if (typical === null) continue;
    timed++;
    if (isSlowAgainst(o, typical)) {
      slow++;
      methods.add(o.method);
      badSinceT ??= o.t;
      if (slowest === null || ms - typical > feltMs(slowest)! - slowestTypical!) {
        slowest = o;
        slowestTypical = typical;
      }
    }
  }
  if (judged < JUDGED_MIN) return null;

  // The trailing runs are read over everything kept, not only the window: a long outage's start is its first failure.
  let run = 0;
  let runStartT: number | null = null;
  for (let i = w.obs.length - 1; i >= 0; i--) {
    const o = w.obs[i]!;
    const as = judgedAs(o);
    if (as === null) continue;
    if (as !== "failed") break;
    run++;
    runStartT = o.t;
  }
  // The good run is read back only so far: an incident closes within seconds of it, and a long-healthy
  // window would otherwise be walked whole every second.
  let goodSinceT: number | null = null;
  const goodFromT = newestT - GOOD_RUN_MS_MAX;
  if (run === 0)
    for (let i = w.obs.length - 1; i >= 0 && w.obs[i]!.t >= goodFromT; i--) {
      const o = w.obs[i]!;
      if (judgedAs(o) === null) continue;
      if (isBad(o)) break;
      goodSinceT = o.t;
    }
  // Trouble that began before the window (a report brings 5 s at once) starts with its first bad probe, however early.
  if (badSinceT !== null) {
    for (let i = windowStart - 1; i >= 0; i--) {
      const o = w.obs[i]!;
      if (judgedAs(o) === null) continue;
      if (!isBad(o)) break;
      badSinceT = o.t;
    }
  }
  const down = run >= DOWN_RUN_MIN;
  const slowView = timed >= SLOW_OK_MIN && slow / timed >= SLOW_SHARE;
  const state = down ? "down" : failed / judged >= DEGRADED_FAILURE_SHARE || slowView ? "degraded" : "up";

  let cause: Cause | null = null;
  let causeText: string | null = null;
  if (state === "degraded" && slowest !== null && failed / judged < DEGRADED_FAILURE_SHARE) {
    const sample = forensic(slowest);
    const { neighbours, typical } = input.around();
    const verdict = attribute({
      sample,
      neighbours: neighbours.map(forensic),
      typicalMs: { ...typical, [seriesKey(slowest.method, slowest.target)]: slowestTypical! },
    });
    // "unexplained" is no cause: the sentence says what was seen, the evidence the rest.
    if (verdict.cause !== "unexplained" && verdict.cause !== "normal") {
      cause = verdict.cause;
      causeText = verdict.text;
    }
  }
  return {
    id: input.id,
    kind: w.kind,
    state,
    judged,
    failed,
    timed,
    slow,
    badSinceT: down ? runStartT : state === "up" ? null : badSinceT,
    goodSinceT,
    newestT,
    methods: [...methods].sort(),
    medianMs: medianOf(latencies),
    typicalMs: slowestTypical,
    failures: [...failures],
    cause,
    causeText,
  };
}
