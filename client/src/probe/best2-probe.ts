// Best of two: a WebSocket message to one server and a JSONP request to the
// other, sent in the same task. Latency runs from the first send to the first
// good reply; the other leg is still awaited (up to its timeout) so the sample
// can say how far behind it was, which is what shows how much racing saved.
import type { SampleReason } from "../../../shared/contract/reasons.js";
import type { Best2Leg, Outcome } from "../../../shared/methods.js";
import { probeJsonp } from "./jsonp-probe.js";
import type { ProbeResult } from "./probe-result.js";
import type { WsChannel } from "./ws-channel.js";

export interface Best2Result {
  outcome: "ok" | "timeout" | "error";
  startMs: number;
  /** Latency from the first send to the first ok reply; the timeout value if both timed out; else null. */
  ms: number | null;
  winner?: Best2Leg;
  /** The other leg's latency from the race's start, when it answered ok. */
  otherMs: number | null;
  /** How the other leg ended (for a failed race: the JSONP leg). */
  otherOutcome: Outcome;
  /** The failed leg's reason: the loser's on a won race, else the WebSocket leg's (the JSONP leg's when it has none). */
  reason?: SampleReason;
  fresh?: boolean;
}

export interface Best2Race {
  /** Settles at the first ok reply, or once both legs have failed: the race is decided. */
  decided: Promise<void>;
  /** Settles when both legs have answered or given up, with the full result. */
  done: Promise<Best2Result>;
}

/** jsonpBaseUrl null: the JSONP leg's server cannot be reached from this page (mixed content). */
export function raceBest2(ws: WsChannel, jsonpBaseUrl: string | null, timeoutMs: number): Best2Race {
  const startMs = performance.now();
  // Both sends happen synchronously here, in one task, so neither leg has a head start.
  const wsLeg = ws.echo(timeoutMs);
  const jsonpLeg: Promise<ProbeResult> =
    jsonpBaseUrl === null
      ? Promise.resolve({ outcome: "error", startMs, endMs: startMs, reason: "mixed-content" })
      : probeJsonp(jsonpBaseUrl, timeoutMs);

  let first: { leg: Best2Leg; r: ProbeResult } | undefined;
  let decide!: () => void;
  const decided = new Promise<void>((resolve) => (decide = resolve));
  const watch = (leg: Best2Leg) => (r: ProbeResult) => {
    if (r.outcome === "ok" && first === undefined) {
      first = { leg, r };
      decide();
    }
    return r;
  };
  const both = Promise.all([wsLeg.then(watch("ws")), jsonpLeg.then(watch("jsonp"))]);
  void both.then(() => decide());

  const done = both.then(([wsR, jsonpR]): Best2Result => {
    if (first === undefined) {
      const outcome = wsR.outcome === "timeout" || jsonpR.outcome === "timeout" ? "timeout" : "error";
      const ms = outcome === "timeout" ? timeoutMs : null;
      const lost: Best2Result = { outcome, startMs, ms, otherMs: null, otherOutcome: jsonpR.outcome };
      // One vocabulary value per sample: the WebSocket leg's reason, whose outcome the sample's
      // own fields do not otherwise carry; the JSONP leg's outcome is otherOutcome.
      const reason = wsR.reason ?? jsonpR.reason;
      if (reason !== undefined) lost.reason = reason;
      return lost;
    }
    // The winner is the leg whose reply came first by its own timestamp, not
    // the first promise to settle: a WebSocket message stamped on arrival can
    // be handled after a JSONP callback that ran later (seen on a busy machine:
    // a "jsonp" win at 7.475 ms over a WebSocket reply at 7.28 ms).
    const bothOk = wsR.outcome === "ok" && jsonpR.outcome === "ok";
    const winner: Best2Leg = bothOk
      ? wsR.endMs < jsonpR.endMs
        ? "ws"
        : jsonpR.endMs < wsR.endMs
          ? "jsonp"
          : first.leg
      : first.leg;
    const won = winner === "ws" ? wsR : jsonpR;
    const other = winner === "ws" ? jsonpR : wsR;
    const r: Best2Result = {
      outcome: "ok",
      startMs,
      ms: Math.max(0, won.endMs - startMs),
      winner,
      otherMs: other.outcome === "ok" ? Math.max(0, other.endMs - startMs) : null,
      otherOutcome: other.outcome,
    };
    if (other.outcome !== "ok" && other.reason !== undefined) r.reason = other.reason;
    if (won.fresh !== undefined) r.fresh = won.fresh;
    return r;
  });
  return { decided, done };
}
