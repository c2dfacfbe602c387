// Where a loaded phase's added latency sits, the question the seed article
// could not answer ("It would have been interesting to run ping tests at the
// same time, to see whether TCP congestion control was part of the
// problem"). The WebSocket probe crosses the browser, its TCP connection and
// the network path; ICMP ping (or, where ping may not run, the kernel's RTT
// on the WebSocket's own connection) crosses the network path alone. If the
// path's witness rose by most of what the WebSocket did, the queue is in the
// path: bufferbloat. If it stayed flat while the WebSocket rose, the time
// went in the browser or in TCP on the loaded connection.
import { formatMs } from "../format.js";
import type { LoadedPhase } from "./phases.js";

export const STRESS_VERDICTS = ["network", "browser", "none", "unknown"] as const;
export type StressVerdict = (typeof STRESS_VERDICTS)[number];

/** Added latency below this (ms) is no queue at all: the A+ band's bound. */
export const NOTABLE_ADDED_MS = 5;
/**
 * The path's witness explains the WebSocket's rise when it rose by at least
 * this share of it. Not half: a full queue drops packets, a dropped ping is
 * lost rather than late (so ping's p50 under-reports the queue), while TCP
 * sends the WebSocket's message again after a timeout of 200 ms or more. Over
 * tbf at 8 Mbit/s with a 300 ms queue ping rose by 0.49–1.33 of the
 * WebSocket's rise in four runs (tests/e2e/stress-bottleneck.test.ts); a
 * queue in the browser leaves ping near 0.
 */
export const NETWORK_SHARE_MIN = 1 / 3;

export interface PhaseRise {
  phase: LoadedPhase;
  /** WebSocket probe p50, loaded minus idle (ms); null when either is missing. */
  wsAddedMs: number | null;
  /** ICMP ping p50, loaded minus idle (ms). */
  pingAddedMs: number | null;
  /** Kernel TCP RTT (tcprtt) p50, loaded minus idle (ms): the witness where ping is missing. */
  tcprttAddedMs: number | null;
}

export interface Verdict {
  verdict: StressVerdict;
  /** One sentence a page can show as it is. */
  summary: string;
}

const signed = (ms: number) => `${ms >= 0 ? "+" : "−"}${formatMs(Math.abs(ms))}`;

export function phaseVerdict(r: PhaseRise): Verdict {
  if (r.wsAddedMs === null)
    return { verdict: "unknown", summary: `${r.phase}: no WebSocket probe figures for idle and loaded` };
  if (r.wsAddedMs < NOTABLE_ADDED_MS)
    return {
      verdict: "none",
      summary: `${r.phase}: WebSocket ${signed(r.wsAddedMs)} over idle: no queue built up`,
    };
  const witness =
    r.pingAddedMs !== null
      ? { name: "ping", ms: r.pingAddedMs }
      : r.tcprttAddedMs !== null
        ? { name: "kernel TCP RTT", ms: r.tcprttAddedMs }
        : null;
  if (witness === null)
    return {
      verdict: "unknown",
      summary: `${r.phase}: WebSocket rose by ${formatMs(r.wsAddedMs)}, but no ping or kernel RTT was measured to tell where`,
    };
  if (witness.ms >= NETWORK_SHARE_MIN * r.wsAddedMs)
    return {
      verdict: "network",
      summary: `${r.phase}: ${witness.name} rose by ${formatMs(witness.ms)}, like WebSocket (${signed(r.wsAddedMs)}): the queue is in the network path (bufferbloat)`,
    };
  return {
    verdict: "browser",
    summary: `${r.phase}: ${witness.name} stayed flat (${signed(witness.ms)}) while WebSocket rose by ${formatMs(r.wsAddedMs)}: the browser or TCP on the loaded connection`,
  };
}

/**
 * The run's verdict: that of the loaded phase whose WebSocket rose most among
 * those with a verdict; "unknown" when no phase has one.
 */
export function runVerdict(rises: readonly PhaseRise[]): Verdict {
  let best: { rise: PhaseRise; v: Verdict } | null = null;
  for (const rise of rises) {
    const v = phaseVerdict(rise);
    if (v.verdict === "unknown") continue;
    if (best === null || (rise.wsAddedMs ?? -Infinity) > (best.rise.wsAddedMs ?? -Infinity)) best = { rise, v };
  }
  return best?.v ?? { verdict: "unknown", summary: "no loaded phase with WebSocket and ping or kernel RTT figures" };
}
