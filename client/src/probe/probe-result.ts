// What one probe reports back, before it becomes a sample.
import type { SampleReason } from "../../../shared/contract/reasons.js";

export interface ProbeResult {
  outcome: "ok" | "timeout" | "error";
  /** performance.now() just before the request left (ms). */
  startMs: number;
  /** performance.now() at the reply or when the probe gave up (ms). */
  endMs: number;
  reason?: SampleReason;
  /** First answer on a new connection. */
  fresh?: boolean;
  /** The server's event-loop delay when it answered (Server-Timing "lag"), ms. */
  serverLagMs?: number;
  /** The server's receive-to-send time on this probe (Server-Timing "app", or the WebSocket served note), ms. */
  serverMs?: number;
}

/** Milliseconds to record: the latency, or the timeout value for a timeout, or null. */
export function resultMs(r: ProbeResult, timeoutMs: number): number | null {
  if (r.outcome === "ok") return Math.max(0, r.endMs - r.startMs);
  if (r.outcome === "timeout") return timeoutMs;
  return null;
}
