// Best of two: a WebSocket message to one server and a JSONP request to the
// other, sent in the same task. Latency runs from the first send to the first
// good reply; the loser's figure is kept to show how much racing saved.
import type { Best2Leg, Outcome } from "../../../shared/methods.js";
import { probeJsonp } from "./jsonp-probe.js";
import type { ProbeResult } from "./probe-result.js";
import type { WsChannel } from "./ws-channel.js";

export interface Best2Result {
  outcome: "ok" | "timeout" | "error";
  startMs: number;
  /** Latency from the first send to the first ok reply; null when both legs failed. */
  ms: number | null;
  winner?: Best2Leg;
  /** The losing leg's latency from the race's start, when it answered. */
  otherMs: number | null;
  otherOutcome: Outcome;
  reason?: string;
  fresh?: boolean;
}

/** jsonpBaseUrl null: the JSONP leg's server cannot be reached from this page (mixed content). */
export async function probeBest2(ws: WsChannel, jsonpBaseUrl: string | null, timeoutMs: number): Promise<Best2Result> {
  const startMs = performance.now();
  const legs: [Promise<ProbeResult>, Promise<ProbeResult>] = [
    ws.echo(timeoutMs),
    jsonpBaseUrl === null
      ? Promise.resolve({ outcome: "error", startMs, endMs: startMs, reason: "mixed-content" })
      : probeJsonp(jsonpBaseUrl, timeoutMs),
  ];
  const [wsLeg, jsonpLeg] = await Promise.all(legs);
  const wsOk = wsLeg.outcome === "ok";
  const jsonpOk = jsonpLeg.outcome === "ok";
  if (!wsOk && !jsonpOk) {
    const outcome = wsLeg.outcome === "timeout" || jsonpLeg.outcome === "timeout" ? "timeout" : "error";
    return {
      outcome,
      startMs,
      ms: outcome === "timeout" ? timeoutMs : null,
      otherMs: null,
      otherOutcome: jsonpLeg.outcome,
      reason: `ws:${wsLeg.reason ?? wsLeg.outcome} jsonp:${jsonpLeg.reason ?? jsonpLeg.outcome}`,
    };
  }
  const wsWins = wsOk && (!jsonpOk || wsLeg.endMs <= jsonpLeg.endMs);
  const [win, lose] = wsWins ? [wsLeg, jsonpLeg] : [jsonpLeg, wsLeg];
  const r: Best2Result = {
    outcome: "ok",
    startMs,
    ms: Math.max(0, win.endMs - startMs),
    winner: wsWins ? "ws" : "jsonp",
    otherMs: lose.outcome === "ok" ? Math.max(0, lose.endMs - startMs) : null,
    otherOutcome: lose.outcome,
  };
  if (win.fresh !== undefined) r.fresh = win.fresh;
  return r;
}
