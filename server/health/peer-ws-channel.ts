// This server's WebSocket to one peer's /ws, as a page holds one: echo
// probes answered byte for byte, the peer's `served` note read for its own
// time. It never says hello, so the peer measures no baselines towards it.
// Reconnects on the prober's ticks (backoff up to 2 s); a connection still
// opening after CONNECT_TIMEOUT_MS, or whose echoes time out three times in
// a row (a powered-off host sends no FIN), is dropped and replaced.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import type { SampleReason } from "../../shared/contract/reasons.js";
import type { PeerProbeResult } from "./peer-http-probe.js";

export const RECONNECT_MS_FIRST = 250;
export const RECONNECT_MS_MAX = 2000;
export const CONNECT_TIMEOUT_MS = 5000;
export const STALE_TIMEOUTS_MAX = 3;
/** An answered echo waits this long for its served note (ms). */
export const SERVED_NOTE_WAIT_MS = 1000;
/** Messages from a peer are tiny; anything bigger is not tailprobe's. */
const PAYLOAD_BYTES_MAX = 64 * 1024;

const SERVED = /^\{"type":"served","id":(\d{1,15}),"serverMs":(\d{1,9}\.\d{3})\}$/;

interface Pending {
  startMs: number;
  echoMs?: number;
  timer: NodeJS.Timeout;
  resolve(r: PeerProbeResult): void;
}

export class PeerWsChannel {
  private socket: WebSocket | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failures = 0;
  private retryAtMs = 0;
  private connectStartedMs = 0;
  private timeoutsInARow = 0;
  private closed = false;
  private opened = false;

  constructor(private readonly url: string) {}

  /** Still opening its first connection: nothing to measure yet (a failure to open is measured once it fails). */
  get starting(): boolean {
    return !this.opened && this.socket?.readyState === WebSocket.CONNECTING;
  }

  /** Reconnects when due; called on every tick of the prober. */
  maintain(): void {
    if (this.closed) return;
    const now = performance.now();
    const s = this.socket;
    if (s === undefined) {
      if (now >= this.retryAtMs) this.connect();
    } else if (s.readyState === WebSocket.CONNECTING && now - this.connectStartedMs > CONNECT_TIMEOUT_MS) {
      this.drop(s, "ws-connect-timeout");
    } else if (s.readyState === WebSocket.OPEN && this.timeoutsInARow >= STALE_TIMEOUTS_MAX) {
      this.drop(s, "ws-stale");
    }
  }

  echo(timeoutMs: number): Promise<PeerProbeResult> {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) {
      const reason: SampleReason = socket?.readyState === WebSocket.CONNECTING ? "ws-connecting" : "ws-closed";
      return Promise.resolve({ outcome: "error", ms: null, reason });
    }
    return new Promise((resolve) => {
      const id = this.nextId++;
      const startMs = performance.now();
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (this.socket === socket) this.timeoutsInARow++;
        resolve({ outcome: "timeout", ms: timeoutMs });
      }, timeoutMs);
      this.pending.set(id, { startMs, timer, resolve });
      socket.send(JSON.stringify({ type: "echo", id }));
    });
  }

  close(): void {
    this.closed = true;
    const s = this.socket;
    if (s !== undefined) this.drop(s, "ws-closed");
  }

  private connect(): void {
    const socket = new WebSocket(this.url, { perMessageDeflate: false, maxPayload: PAYLOAD_BYTES_MAX });
    this.socket = socket;
    this.connectStartedMs = performance.now();
    this.timeoutsInARow = 0;
    socket.on("open", () => {
      this.failures = 0;
      this.opened = true;
    });
    socket.on("message", (data: WebSocket.RawData, isBinary: boolean) => {
      if (!isBinary) this.onMessage(data.toString(), performance.now());
    });
    socket.on("close", () => this.drop(socket, "ws-closed"));
    // An error is followed by close; it only must not go unhandled.
    socket.on("error", () => undefined);
  }

  private drop(socket: WebSocket, reason: SampleReason): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    socket.removeAllListeners("close");
    socket.terminate();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve(
        p.echoMs !== undefined ? { outcome: "ok", ms: p.echoMs - p.startMs } : { outcome: "error", ms: null, reason },
      );
      this.pending.delete(id);
    }
    this.failures++;
    this.retryAtMs = performance.now() + Math.min(RECONNECT_MS_MAX, RECONNECT_MS_FIRST * 2 ** (this.failures - 1));
  }

  private onMessage(text: string, atMs: number): void {
    const echo = /^\{"type":"echo","id":(\d{1,15})\}$/.exec(text);
    if (echo !== null) {
      const id = Number(echo[1]);
      const p = this.pending.get(id);
      if (p === undefined || p.echoMs !== undefined) return;
      clearTimeout(p.timer);
      this.timeoutsInARow = 0;
      p.echoMs = atMs;
      p.timer = setTimeout(() => {
        this.pending.delete(id);
        p.resolve({ outcome: "ok", ms: atMs - p.startMs });
      }, SERVED_NOTE_WAIT_MS);
      return;
    }
    const served = SERVED.exec(text);
    if (served === null) return;
    const id = Number(served[1]);
    const p = this.pending.get(id);
    if (p === undefined || p.echoMs === undefined) return;
    clearTimeout(p.timer);
    this.pending.delete(id);
    p.resolve({ outcome: "ok", ms: p.echoMs - p.startMs, serverMs: Number(served[2]) });
  }
}
