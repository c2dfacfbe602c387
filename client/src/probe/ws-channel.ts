// One WebSocket per server: the WebSocket probe, and the channel on which the
// server pushes the baselines it measured towards this page.
import { parseWith } from "../../../shared/contract/parse.js";
import { upgradeReason, type SampleReason } from "../../../shared/contract/reasons.js";
import { serverWsMessageSchema, type BaselineSample } from "../../../shared/contract/ws.js";
import type { ProbeResult } from "./probe-result.js";

/** Reconnect backoff: doubles from the first value up to the cap (ms). */
export const RECONNECT_MS_FIRST = 250;
export const RECONNECT_MS_MAX = 2000;
/**
 * A connection attempt still not open after this long is abandoned and retried
 * (ms). A host that drops packets (powered off, firewalled) would otherwise
 * keep the socket CONNECTING for the OS's whole SYN retry period, minutes.
 */
export const CONNECT_TIMEOUT_MS = 5000;
/**
 * Echoes timing out in a row on an open socket before it is presumed dead and
 * replaced: a server that lost power sends no FIN or RST, so without this the
 * socket looks open until TCP gives up, about fifteen minutes later.
 */
export const STALE_TIMEOUTS_MAX = 3;
/**
 * How long an answered echo waits for its `served` note before it is
 * recorded without server time (ms). The note leaves the server right after
 * the echo, so it normally arrives in the same read.
 */
export const SERVED_NOTE_WAIT_MS = 1000;

/** The echo message exactly as echo() sends it (JSON.stringify of { type, id }). */
const ECHO_REPLY = /^\{"type":"echo","id":(\d{1,15})\}$/;
/** The served note exactly as server/echo/ws-echo.ts writes it (serverMs with three decimals). */
const SERVED_NOTE = /^\{"type":"served","id":(\d{1,15}),"serverMs":(\d{1,9}\.\d{3})\}$/;

interface Pending {
  startMs: number;
  /** performance.now() when the echo came back, while its served note is awaited. */
  endMs?: number;
  timer: ReturnType<typeof setTimeout>;
  fresh: boolean;
  resolve(r: ProbeResult): void;
}

export interface WsChannelOptions {
  url: string;
  hello: { clientId: string; sessionId: string };
  onBaseline(server: string, samples: BaselineSample[]): void;
  onStateChange?(open: boolean): void;
}

export class WsChannel {
  private socket: WebSocket | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failures = 0;
  private retryAtMs = 0;
  private connectStartedMs = 0;
  private timeoutsInARow = 0;
  /** The next echo is the first on this connection. */
  private freshConnection = true;
  /** Name the server announced in its welcome. */
  serverName: string | undefined;
  /** The server follows each echo with a served note (said in its welcome). */
  private serverSendsNotes = false;

  constructor(private readonly options: WsChannelOptions) {
    this.connect();
  }

  get isOpen(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /**
   * Reconnects when due. Called on every clock tick rather than from a timer
   * chain of its own, because chained page timers are throttled in hidden tabs.
   */
  maintain(): void {
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

  echo(timeoutMs: number): Promise<ProbeResult> {
    const socket = this.socket;
    const startMs = performance.now();
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) {
      const reason = socket?.readyState === WebSocket.CONNECTING ? "ws-connecting" : "ws-closed";
      return Promise.resolve({ outcome: "error", startMs, endMs: startMs, reason });
    }
    return new Promise((resolve) => {
      const id = this.nextId++;
      const fresh = this.freshConnection;
      this.freshConnection = false;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (this.socket === socket) this.timeoutsInARow++;
        resolve({ outcome: "timeout", startMs, endMs: performance.now(), fresh });
      }, timeoutMs);
      this.pending.set(id, { startMs, timer, fresh, resolve });
      socket.send(JSON.stringify({ type: "echo", id }));
    });
  }

  /**
   * Sends a message that is not a probe (a health note) if the socket is
   * open; false otherwise. The caller chooses the moment: never a probe's.
   */
  note(text: string): boolean {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(text);
    return true;
  }

  close(): void {
    const s = this.socket;
    this.socket = undefined;
    this.retryAtMs = Number.POSITIVE_INFINITY;
    s?.close();
  }

  private connect(): void {
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.options.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    this.connectStartedMs = performance.now();
    this.timeoutsInARow = 0;
    socket.onopen = () => {
      this.failures = 0;
      this.freshConnection = true;
      socket.send(JSON.stringify({ type: "hello", ...this.options.hello }));
      this.options.onStateChange?.(true);
    };
    socket.onmessage = (ev: MessageEvent) => this.onMessage(ev.data);
    socket.onclose = () => this.drop(socket, "ws-closed");
  }

  /** Forgets a socket (closed, or given up on): its pending echoes fail now, and a retry is scheduled. */
  private drop(socket: WebSocket, reason: SampleReason): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    socket.onopen = socket.onmessage = socket.onclose = null;
    if (socket.readyState !== WebSocket.CLOSED) socket.close();
    const endMs = performance.now();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      // An echo already answered keeps its answer; only its server figure is lost with the socket.
      if (p.endMs !== undefined) p.resolve({ outcome: "ok", startMs: p.startMs, endMs: p.endMs, fresh: p.fresh });
      else p.resolve({ outcome: "error", startMs: p.startMs, endMs, reason, fresh: p.fresh });
      this.pending.delete(id);
    }
    this.scheduleRetry();
    this.options.onStateChange?.(false);
  }

  private scheduleRetry(): void {
    this.failures++;
    const delay = Math.min(RECONNECT_MS_MAX, RECONNECT_MS_FIRST * 2 ** (this.failures - 1));
    if (this.retryAtMs !== Number.POSITIVE_INFINITY) this.retryAtMs = performance.now() + delay;
  }

  private onMessage(data: unknown): void {
    const endMs = performance.now();
    if (typeof data !== "string") return;
    // An echo reply is our own message sent back byte for byte; matching its
    // exact text is a complete check of it, and keeps zod (~0.3 ms a parse
    // without JIT) off the reply's task. Anything else goes through the schema.
    const echo = ECHO_REPLY.exec(data);
    if (echo !== null) {
      this.onEcho(Number(echo[1]), endMs);
      return;
    }
    // The served note follows every echo: the same exact-text shortcut keeps it cheap too.
    const served = SERVED_NOTE.exec(data);
    if (served !== null) {
      this.onServed(Number(served[1]), Number(served[2]));
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      return;
    }
    const msg = parseWith(serverWsMessageSchema, withOlderPeersReasons(raw));
    if (!msg.ok) return;
    const m = msg.value;
    if (m.type === "echo") {
      this.onEcho(m.id, endMs);
    } else if (m.type === "served") {
      this.onServed(m.id, m.serverMs);
    } else if (m.type === "welcome") {
      this.serverName = m.name;
      this.serverSendsNotes = m.served === true;
    } else if (m.type === "baseline") {
      this.options.onBaseline(this.serverName ?? "", m.samples);
    }
  }

  private onEcho(id: number, endMs: number): void {
    const p = this.pending.get(id);
    if (p === undefined || p.endMs !== undefined) return; // answered after its timeout: already recorded
    clearTimeout(p.timer);
    this.timeoutsInARow = 0;
    if (!this.serverSendsNotes) {
      this.pending.delete(id);
      p.resolve({ outcome: "ok", startMs: p.startMs, endMs, fresh: p.fresh });
      return;
    }
    // The latency is fixed now; only the server's own figure is still on its way.
    p.endMs = endMs;
    p.timer = setTimeout(() => {
      this.pending.delete(id);
      p.resolve({ outcome: "ok", startMs: p.startMs, endMs, fresh: p.fresh });
    }, SERVED_NOTE_WAIT_MS);
  }

  private onServed(id: number, serverMs: number): void {
    const p = this.pending.get(id);
    if (p === undefined || p.endMs === undefined) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve({ outcome: "ok", startMs: p.startMs, endMs: p.endMs, fresh: p.fresh, serverMs });
  }
}

/**
 * A peer running an older tailprobe writes its baselines' reasons as free
 * text, which the schema refuses, and with it the whole message: they get the
 * vocabulary's nearest value instead, so its baselines still reach home.
 */
function withOlderPeersReasons(raw: unknown): unknown {
  const m = raw as { type?: unknown; samples?: unknown } | null;
  if (m === null || typeof m !== "object" || m.type !== "baseline" || !Array.isArray(m.samples)) return raw;
  return { ...m, samples: m.samples.map((s: unknown) => (typeof s === "object" && s !== null ? upgradeReason(s) : s)) };
}
