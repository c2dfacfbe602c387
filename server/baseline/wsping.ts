// WebSocket ping frames on one page's connection. Browsers answer them in
// their network stack without running page JavaScript, so the pong time is
// the path plus both ends' socket handling, and none of the page's own delays.
import { performance } from "node:perf_hooks";
import type { WebSocket } from "ws";
import type { SampleReason } from "../../shared/contract/index.js";

export interface WsPingResult {
  /** When the frame was sent (epoch ms). */
  t: number;
  ms: number | null;
  outcome: "ok" | "timeout" | "error" | "skipped";
  reason?: SampleReason;
}

interface Outstanding {
  sentAtMs: number;
  startPerfMs: number;
}

/** Frames still unanswered beyond this many are given up as timeouts at once: a bound, not a policy. */
const OUTSTANDING_MAX = 64;

export class WsPinger {
  private nextId = 0;
  private readonly outstanding = new Map<string, Outstanding>();
  private readonly onPong = (data: Buffer) => this.settle(data.toString("latin1"));

  /**
   * @param timeoutMs a frame unanswered for this long (ms) is a timeout.
   * @param nowMs the wall clock (epoch ms) for the samples' `t`.
   */
  constructor(
    private readonly socket: WebSocket,
    private readonly timeoutMs: number,
    private readonly nowMs: () => number,
    private readonly onResult: (r: WsPingResult) => void,
  ) {
    socket.on("pong", this.onPong);
  }

  /** Sends one ping frame, after settling frames that are overdue. */
  send(): void {
    this.expire();
    if (this.socket.readyState !== this.socket.OPEN) return;
    // The payload names the frame, so a late pong is matched to its own ping.
    const id = `tp${this.nextId++}`;
    const sentAtMs = this.nowMs();
    this.outstanding.set(id, { sentAtMs, startPerfMs: performance.now() });
    try {
      this.socket.ping(id);
    } catch {
      // ws throws only for a socket already closing: that is all this reason says.
      this.outstanding.delete(id);
      this.onResult({ t: sentAtMs, ms: null, outcome: "error", reason: "ws-send-failed" });
    }
  }

  /** Frames unanswered past the timeout become timeout results. */
  expire(): void {
    const nowPerf = performance.now();
    for (const [id, o] of this.outstanding) {
      if (nowPerf - o.startPerfMs >= this.timeoutMs || this.outstanding.size > OUTSTANDING_MAX) {
        this.outstanding.delete(id);
        this.onResult({ t: o.sentAtMs, ms: this.timeoutMs, outcome: "timeout" });
      }
    }
  }

  stop(): void {
    this.socket.off("pong", this.onPong);
    this.outstanding.clear();
  }

  /**
   * The socket closed: frames still unanswered never will be. They become
   * `skipped` with `reason`, neither latency nor failure: a page that went
   * away says nothing about the path. Then it stops.
   */
  abandon(reason: SampleReason): void {
    for (const o of this.outstanding.values()) this.onResult({ t: o.sentAtMs, ms: null, outcome: "skipped", reason });
    this.stop();
  }

  private settle(id: string): void {
    const o = this.outstanding.get(id);
    if (o === undefined) return; // unsolicited, or already a timeout
    this.outstanding.delete(id);
    // Microsecond resolution is all a pong time can honestly claim.
    const ms = Math.round((performance.now() - o.startPerfMs) * 1000) / 1000;
    this.onResult(
      ms > this.timeoutMs
        ? { t: o.sentAtMs, ms: this.timeoutMs, outcome: "timeout" }
        : { t: o.sentAtMs, ms, outcome: "ok" },
    );
  }
}
