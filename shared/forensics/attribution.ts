// Attribution: why was this probe slow? The rules, applied in order, each
// with the evidence it read (docs/investigating.md lists them for users):
//   1. client   — the page was hidden or frozen, or a tick of this page in
//                 the same second fired late (its main thread was busy) by
//                 at least half the probe's excess;
//   2. server   — the server's own handler time (or event-loop delay) is at
//                 least half the excess;
//   3. network  — a baseline to the same server (ping, WebSocket ping frame,
//                 kernel RTT) spiked in the same second;
//   4. HTTP     — an HTTP probe was slow while the WebSocket probe and ping
//                 frame to the same server in the same second were not;
//   5. unexplained.
// A sample that is not slow against its series' typical latency is "normal".
import { BASELINE_METHODS, METHOD_LABELS, PROBE_METHODS, type Method } from "../methods.js";

/** A probe is slow when it exceeds its series' typical latency by this factor … */
export const SLOW_RATIO = 1.5;
/** … and by at least this many ms (a 1 ms loopback echo taking 2 ms is not an outlier). */
export const SLOW_EXCESS_MS_MIN = 20;
/** A tick at least this late (ms) means the page's main thread was busy … */
export const CLIENT_LATE_MS_MIN = 100;
/** … and it explains the probe when it is at least this share of the excess (a busy machine is often a little late). */
export const CLIENT_SHARE_MIN = 0.5;
/** Server time counts as the cause when it is at least this many ms … */
export const SERVER_MS_MIN = 20;
/** … and at least this share of the probe's excess over typical. */
export const SERVER_SHARE_MIN = 0.5;
/** "The same second": neighbours sent this close before the probe, or before its reply plus this (ms). */
export const SAME_SECOND_MS = 1000;

export interface ForensicSample {
  method: string;
  target: string;
  /** When sent (epoch ms). */
  t: number;
  /** Latency (ms); the timeout value for a timeout; null for errors and skips. */
  ms: number | null;
  outcome: string;
  lateMs: number | null;
  visibleAtSend: boolean | null;
  visibleAtReply: boolean | null;
  hiddenMs: number | null;
  froze: boolean | null;
  fresh: boolean | null;
  /** The server's handler time, receive to send (ms). */
  serverMs: number | null;
  /** The server's event-loop delay when it answered (ms). */
  serverLagMs: number | null;
}

export interface AttributionInput {
  sample: ForensicSample;
  /** The same client's other samples (every method, every server, baselines) around the probe. */
  neighbours: readonly ForensicSample[];
  /** Typical (median) latency per seriesKey(method, target) over the surrounding minutes (ms). */
  typicalMs: Readonly<Record<string, number>>;
}

export type Cause = "client" | "server" | "network" | "http" | "unexplained" | "normal";

export interface Verdict {
  cause: Cause;
  /** The server the cause lies with (server, network, http), else null. */
  target: string | null;
  /** One plain sentence, e.g. "server B: 120 ms in its own handler". */
  text: string;
  /** Every fact the rules read, in the order they read them. */
  evidence: string[];
}

/** The probe split into where its time went (ms); null where nothing was measured. */
export interface Breakdown {
  /** How late the tick fired: time before the probe left. */
  lateMs: number | null;
  totalMs: number | null;
  serverMs: number | null;
  /** The baseline to the same server nearest in time: what the path itself took. */
  pathMs: number | null;
  pathMethod: string | null;
  /** total − server − path: the browser and the HTTP or WebSocket stack. */
  restMs: number | null;
}

export function seriesKey(method: string, target: string): string {
  return `${method} ${target}`;
}

function label(method: string): string {
  return Object.hasOwn(METHOD_LABELS, method) ? METHOD_LABELS[method as Method] : method;
}

const fmt = (ms: number) => (ms >= 10 ? ms.toFixed(0) : ms.toFixed(1));
const isProbe = (m: string) => (PROBE_METHODS as readonly string[]).includes(m);
const isBaseline = (m: string) => (BASELINE_METHODS as readonly string[]).includes(m);
const isHttp = (m: string) => m === "xhr" || m === "jsonp";

/** Excess over typical (ms), or null when the series has no typical figure or the sample no latency. */
function excessOf(s: ForensicSample, typical: Readonly<Record<string, number>>): number | null {
  const t = typical[seriesKey(s.method, s.target)];
  return s.ms === null || t === undefined ? null : s.ms - t;
}

export function isSlow(s: ForensicSample, typical: Readonly<Record<string, number>>): boolean {
  const t = typical[seriesKey(s.method, s.target)];
  if (s.ms === null || t === undefined) return s.outcome === "timeout";
  return s.ms >= t * SLOW_RATIO && s.ms - t >= SLOW_EXCESS_MS_MIN;
}

function inSameSecond(s: ForensicSample, n: ForensicSample): boolean {
  const end = s.t + (s.ms ?? 0);
  return n.t >= s.t - SAME_SECOND_MS && n.t <= end + SAME_SECOND_MS;
}

export function breakdown(input: AttributionInput): Breakdown {
  const s = input.sample;
  let path: ForensicSample | null = null;
  for (const n of input.neighbours) {
    if (!isBaseline(n.method) || n.target !== s.target || n.ms === null || !inSameSecond(s, n)) continue;
    if (path === null || Math.abs(n.t - s.t) < Math.abs(path.t - s.t)) path = n;
  }
  const pathMs = path?.ms ?? null;
  const rest = s.ms === null ? null : Math.max(0, s.ms - (s.serverMs ?? 0) - (pathMs ?? 0));
  return {
    lateMs: s.lateMs,
    totalMs: s.ms,
    serverMs: s.serverMs,
    pathMs,
    pathMethod: path?.method ?? null,
    restMs: rest,
  };
}

export function attribute(input: AttributionInput): Verdict {
  const { sample: s, typicalMs } = input;
  const near = input.neighbours.filter((n) => n !== s && inSameSecond(s, n));
  const evidence: string[] = [];
  const typical = typicalMs[seriesKey(s.method, s.target)];
  const excess = excessOf(s, typicalMs);
  evidence.push(
    `${label(s.method)} to ${s.target}: ${s.ms === null ? s.outcome : `${fmt(s.ms)} ms`}` +
      (typical === undefined ? " (no typical figure)" : ` against a typical ${fmt(typical)} ms`),
  );
  if (!isSlow(s, typicalMs)) {
    return { cause: "normal", target: null, text: "not an outlier: within its series' usual range", evidence };
  }

  // 1. Client.
  const hidden = s.visibleAtSend === false || s.visibleAtReply === false || (s.hiddenMs ?? 0) > 0;
  const pageTicks = [s, ...near.filter((n) => isProbe(n.method))];
  const latest = pageTicks.reduce((m, n) => Math.max(m, n.lateMs ?? 0), 0);
  const ownLate = s.lateMs ?? 0;
  evidence.push(
    `tab ${hidden ? "hidden" : "visible"}${s.froze === true ? ", page froze" : ""}; tick ${fmt(ownLate)} ms late, ` +
      `latest tick of this page in the same second ${fmt(latest)} ms late`,
  );
  const lateEnough = latest >= CLIENT_LATE_MS_MIN && latest >= CLIENT_SHARE_MIN * Math.max(excess ?? 0, 0);
  if (hidden || s.froze === true || lateEnough) {
    const parts: string[] = [];
    if (hidden) parts.push("the tab was hidden");
    if (s.froze === true) parts.push("the page was frozen");
    if (ownLate >= CLIENT_LATE_MS_MIN) parts.push(`the tick fired ${fmt(ownLate)} ms late`);
    else if (lateEnough)
      parts.push(`a tick in the same second fired ${fmt(latest)} ms late (the page's main thread was busy)`);
    return { cause: "client", target: null, text: `client: ${parts.join(" and ")}`, evidence };
  }

  // 2. Server.
  const share = Math.max(excess ?? s.ms ?? 0, 0) * SERVER_SHARE_MIN;
  evidence.push(
    `server ${s.target}: handler ${s.serverMs === null ? "not reported" : `${fmt(s.serverMs)} ms`}, ` +
      `event-loop delay ${s.serverLagMs === null ? "not reported" : `${fmt(s.serverLagMs)} ms`}`,
  );
  if (s.serverMs !== null && s.serverMs >= SERVER_MS_MIN && s.serverMs >= share)
    return {
      cause: "server",
      target: s.target,
      text: `server ${s.target}: ${fmt(s.serverMs)} ms in its own handler`,
      evidence,
    };
  if (s.serverLagMs !== null && s.serverLagMs >= SERVER_MS_MIN && s.serverLagMs >= share)
    return {
      cause: "server",
      target: s.target,
      text: `server ${s.target}: its event loop was ${fmt(s.serverLagMs)} ms behind`,
      evidence,
    };

  // 3. Network.
  const baselines = near.filter((n) => isBaseline(n.method) && n.target === s.target);
  if (baselines.length === 0) evidence.push(`no baseline to ${s.target} in the same second`);
  let spike: ForensicSample | null = null;
  for (const b of baselines) {
    const bt = typicalMs[seriesKey(b.method, b.target)];
    evidence.push(
      `${label(b.method)} to ${s.target}: ${b.ms === null ? b.outcome : `${fmt(b.ms)} ms`}` +
        (bt === undefined ? "" : ` (typical ${fmt(bt)} ms)`),
    );
    if (isSlow(b, typicalMs) && (spike === null || (b.ms ?? Infinity) > (spike.ms ?? Infinity))) spike = b;
  }
  if (spike !== null) {
    const what = spike.ms === null ? `timed out` : `spiked to ${fmt(spike.ms)} ms`;
    return {
      cause: "network",
      target: s.target,
      text: `network: ${label(spike.method)} to this client ${what} in the same second`,
      evidence,
    };
  }

  // 4. HTTP.
  if (isHttp(s.method)) {
    const sameServer = near.filter((n) => n.target === s.target);
    const ws = sameServer.filter((n) => n.method === "ws" || n.method === "wsping");
    const slowHttp = new Set([
      s.method,
      ...sameServer.filter((n) => isHttp(n.method) && isSlow(n, typicalMs)).map((n) => n.method),
    ]);
    const wsFine = ws.length > 0 && ws.every((n) => n.ms !== null && !isSlow(n, typicalMs));
    evidence.push(
      ws.length === 0
        ? `no WebSocket probe or ping frame to ${s.target} in the same second`
        : `WebSocket to ${s.target} in the same second: ${ws.map((n) => `${n.method} ${n.ms === null ? n.outcome : fmt(n.ms)}`).join(", ")}`,
    );
    if (wsFine) {
      const names = [...slowHttp]
        .sort()
        .reverse()
        .map((m) => (m === "xhr" ? "XHR" : "JSONP"));
      const hasPing = ws.some((n) => n.method === "wsping");
      return {
        cause: "http",
        target: s.target,
        text: `HTTP: ${names.join(" and ")} slow while WebSocket${hasPing ? " and its ping frame were" : " was"} not`,
        evidence,
      };
    }
  }
  return { cause: "unexplained", target: null, text: "unexplained: no rule matched the evidence below", evidence };
}
