// Which of a sample's fields go together: the combinations the page's probes
// (client/src/probe/) and the servers' baselines (server/baseline/) produce,
// and nothing else. A sample outside them was forged or broken, and storing
// it would make a series no probe measured (`xhr` to `A+B`) or a count in the
// wrong column (`ok` with a failure reason) in /api/stats and /metrics. Both
// readers of a sample (sampleSchema and sample-reader.ts) refuse through
// samplePairProblem; docs/api.md's Reasons table is checked against REASON_USES.
import { type Best2Leg, type Method, METHODS, type Outcome, OUTCOMES } from "../methods.js";
import { isBest2Target, isServerName } from "../names.js";
import { LATENCY_MS_MAX } from "./fields.js";
import type { SampleReason } from "./reasons.js";

/** Reasons of a tick that was due but not sent (client/src/probe/clock-schedule.ts, prober.ts). */
const PAGE_SKIPS = ["frozen", "asleep", "outstanding-cap"] as const;
/** Why the page's own prober gave a probe up, whatever its method (prober.ts). */
const PROBER_ERRORS = ["mixed-content", "page-closed"] as const;
/** A WebSocket echo's failures (ws-channel.ts): the ws probe's, and best2's WebSocket leg's. */
const WS_LEG = ["ws-connecting", "ws-closed", "ws-connect-timeout", "ws-stale"] as const;
/** A JSONP request's failures (jsonp-probe.ts, best2-probe.ts's blocked leg): best2's JSONP leg's. */
const JSONP_LEG = ["network", "no-callback", "mixed-content"] as const;
/** best2 carries its failed leg's reason: on a lost race (error, timeout) and on a won one (ok) alike. */
const LEGS = [...WS_LEG, ...JSONP_LEG] as const;

type Uses = Readonly<Record<Outcome, readonly SampleReason[]>>;
const uses = (u: Partial<Uses>): Uses => ({ ok: [], timeout: [], error: [], skipped: [], ...u });

/**
 * For each method and outcome, the reasons its samples carry (a sample
 * without a reason is always possible: a plain ok or timeout, or a sample of
 * an older page). Everything else is refused.
 */
export const REASON_USES: Readonly<Record<Method, Uses>> = {
  xhr: uses({
    error: [...PROBER_ERRORS, "network", "http-429", "http-4xx", "http-5xx", "http-other"],
    skipped: PAGE_SKIPS,
  }),
  jsonp: uses({ error: [...PROBER_ERRORS, "network", "no-callback"], skipped: PAGE_SKIPS }),
  ws: uses({ error: [...PROBER_ERRORS, ...WS_LEG], skipped: PAGE_SKIPS }),
  best2: uses({ ok: LEGS, timeout: LEGS, error: [...new Set([...PROBER_ERRORS, ...LEGS])], skipped: PAGE_SKIPS }),
  ping: uses({
    timeout: ["late-reply"],
    error: ["icmp-unreachable", "icmp-ttl-exceeded", "icmp-error", "ping-unavailable"],
    skipped: ["ping-capacity"],
  }),
  wsping: uses({ error: ["ws-send-failed"], skipped: ["ws-closed"] }),
  tcprtt: uses({ error: ["ss-busy", "ss-failed", "no-tcp-info"] }),
  // A server's own probes of its peers (server/health/peer-http-probe.ts, peer-ws-channel.ts).
  peerhttp: uses({ error: ["network", "http-429", "http-4xx", "http-5xx", "http-other"] }),
  peerws: uses({ error: WS_LEG }),
};

/** Each (method, outcome) pair a reason is used with, in METHODS then OUTCOMES order: what docs/api.md lists. */
export function reasonPairs(reason: SampleReason): { method: Method; outcome: Outcome }[] {
  return METHODS.flatMap((method) =>
    OUTCOMES.filter((outcome) => REASON_USES[method][outcome].includes(reason)).map((outcome) => ({ method, outcome })),
  );
}

/**
 * How far a probe's send time `t` may lie from its tick's due time
 * `scheduledT` (ms): a page records a tick it reaches a whole interval late
 * as skipped at its due time, and intervals are at most a minute; a day
 * (LATENCY_MS_MAX, lateMs's own bound) leaves room for any clock step.
 */
export const SCHEDULE_OFFSET_MS_MAX = LATENCY_MS_MAX;
/** lateMs is t − scheduledT (0 when the tick fired early), to within this (ms): both are whole ms on the page. */
export const LATE_MS_SLACK = 1;

/**
 * The fields whose combinations are judged here. A Sample has them all; they
 * are named here rather than imported because samples.ts imports this file.
 */
export interface PairedFields {
  method: Method;
  outcome: Outcome;
  target: string;
  t: number;
  ms: number | null;
  reason?: SampleReason | undefined;
  winner?: Best2Leg | undefined;
  otherMs?: number | null | undefined;
  otherOutcome?: Outcome | undefined;
  minrtt?: number | undefined;
  scheduledT?: number | undefined;
  lateMs?: number | undefined;
  stressRun?: string | undefined;
  load?: string | undefined;
}

/** What is wrong with a well-typed sample's combination of fields, as "field: problem", or undefined. */
export function samplePairProblem(s: PairedFields): string | undefined {
  if (s.outcome === "ok" && s.ms === null) return "an ok sample needs ms";
  if ((s.outcome === "error" || s.outcome === "skipped") && s.ms !== null) return `a ${s.outcome} sample has ms null`;
  if (s.method !== "best2" && (s.winner !== undefined || s.otherMs !== undefined || s.otherOutcome !== undefined))
    return "winner/otherMs/otherOutcome belong to best2 samples";
  if (s.minrtt !== undefined && s.method !== "tcprtt") return "minrtt belongs to tcprtt samples";
  if ((s.stressRun === undefined) !== (s.load === undefined)) return "stressRun and load go together";
  if (s.method === "best2" ? !isBest2Target(s.target) : !isServerName(s.target))
    return s.method === "best2"
      ? `target: best2 races two servers, named "A+B" (got '${s.target}')`
      : `target: ${s.method} measures one server, named without "+" (got '${s.target}')`;
  if (s.reason !== undefined && !REASON_USES[s.method][s.outcome].includes(s.reason))
    return `reason: ${s.method} samples that end ${s.outcome} never carry '${s.reason}' (docs/api.md, Reasons)`;
  if (s.method === "best2") {
    if (s.winner !== undefined && s.outcome !== "ok") return "winner: only a race that ended ok has a winner";
    if (s.otherOutcome === "skipped") return "otherOutcome: a race's leg is never skipped";
    if (s.otherMs !== undefined && s.otherMs !== null && s.otherOutcome !== "ok")
      return "otherMs: the other leg has a latency only when it answered ok";
    if (s.outcome === "ok" && s.reason !== undefined && s.otherOutcome === "ok")
      return "reason: a won race carries the losing leg's reason, and this one answered ok";
  }
  if (s.scheduledT !== undefined) {
    const offsetMs = s.t - s.scheduledT;
    if (s.lateMs !== undefined && Math.abs(s.lateMs - Math.max(0, offsetMs)) > LATE_MS_SLACK)
      return `lateMs: ${s.lateMs} but the tick was due ${offsetMs} ms before t`;
    if (Math.abs(offsetMs) > SCHEDULE_OFFSET_MS_MAX)
      return `scheduledT: ${offsetMs > 0 ? "more than a day before" : "more than a day after"} t`;
  }
  return undefined;
}
