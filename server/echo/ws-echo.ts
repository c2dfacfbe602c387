// WebSocket /ws: echoes the page's probe messages byte for byte and learns
// which client is on which connection, so baselines can be measured towards it.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { clientWsMessageSchema, parseWith, type HealthNoteSample } from "../../shared/contract/index.js";
import { normalizeAddress } from "../client-address.js";
import { limiterKey } from "../limits/rate-limiter.js";
import { NO_STALL, type EchoStall } from "./echo-stall.js";

/** Probe messages are tiny; anything bigger is not ours. */
export const WS_PAYLOAD_BYTES_MAX = 4096;
/**
 * The exact shape the page sends for an echo probe. Matching it with one
 * anchored regex is a complete parse of that message and skips JSON.parse and
 * the schema on the hot path; anything else takes the full parse below.
 */
const ECHO_MESSAGE = /^\{"type":"echo","id":(\d{1,15})\}$/;

/** WebSocket close code for a message that breaks the protocol (RFC 6455 policy violation). */
export const WS_CLOSE_BAD_MESSAGE = 1008;

export interface WsLimits {
  /** Open WebSockets per address; beyond it the upgrade is answered 429. */
  wsPerAddress: number;
  /** Ping every this often (ms); a socket that answered nothing since the last one is terminated. */
  wsHeartbeatMs: number;
  /** A socket whose unsent output passes this (bytes) stopped reading: it is terminated. */
  wsSendBufferBytesMax: number;
}

export interface WsClient {
  socket: WebSocket;
  clientId: string;
  sessionId: string;
  /** The TCP peer's address as the kernel sees it, never one taken from a message. */
  address: string;
  remotePort: number;
  /** The socket's own remote address, even behind --trust-proxy: matches the kernel's TCP_INFO. */
  socketAddress: string;
}

/** Seconds a client over its WebSocket cap is told to wait. */
const WS_RETRY_AFTER_S = 5;

export interface WsEchoHooks {
  /** Called once a page said hello on a connection. */
  onClient(client: WsClient): void;
  /** Called when a connection that said hello closes. */
  onClientGone(client: WsClient): void;
  /** A page's health note (client/src/report/health-notes.ts), on a connection that said hello. */
  onHealthNote?(client: WsClient, samples: readonly HealthNoteSample[]): void;
}

export interface WsEcho {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

/**
 * Echoes `text` byte for byte, then reports the server's receive-to-send time
 * (ms) in a separate `served` note. The note is queued only after the echo's
 * own send, so it cannot delay the echo it describes; the echo stays the
 * page's exact bytes, and a page that ignores notes measures what it always did.
 */
function echoAndNote(
  socket: WebSocket,
  text: string | RawData,
  id: number,
  receivedNs: bigint,
  stall: EchoStall,
  bounded: (socket: WebSocket, data: string | RawData) => void,
): void {
  const send = () => {
    bounded(socket, text);
    const serverMs = Number(process.hrtime.bigint() - receivedNs) / 1e6;
    bounded(socket, `{"type":"served","id":${id},"serverMs":${serverMs.toFixed(3)}}`);
  };
  const delayMs = stall.delayMs();
  if (delayMs > 0) setTimeout(send, delayMs);
  else send();
}

export function createWsEcho(
  serverName: string,
  hooks: WsEchoHooks,
  peerAddress: (req: IncomingMessage) => string,
  limits: WsLimits,
  stall: EchoStall = NO_STALL,
): WsEcho {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: WS_PAYLOAD_BYTES_MAX });
  const welcome = JSON.stringify({ type: "welcome", name: serverName, served: true });
  const openByAddress = new Map<string, number>();
  /** Sockets that sent anything (a pong, a message) since the last heartbeat. */
  const alive = new WeakSet<WebSocket>();

  const heartbeat = setInterval(() => {
    for (const socket of wss.clients) {
      if (!alive.has(socket)) {
        socket.terminate();
        continue;
      }
      alive.delete(socket);
      socket.ping();
    }
  }, limits.wsHeartbeatMs);
  heartbeat.unref();

  /** Sends, unless the peer has stopped reading: then its backlog is not ours to hold. */
  const send = (socket: WebSocket, data: RawData | string) => {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > limits.wsSendBufferBytesMax) {
      socket.terminate();
      return;
    }
    socket.send(data, { binary: false });
  };

  const release = (key: string) => {
    const left = (openByAddress.get(key) ?? 1) - 1;
    if (left <= 0) openByAddress.delete(key);
    else openByAddress.set(key, left);
  };

  wss.on("connection", (socket: WebSocket, req: IncomingMessage, address: string, key: string) => {
    const remotePort = req.socket.remotePort ?? 0;
    const socketAddress = normalizeAddress(req.socket.remoteAddress ?? "");
    let client: WsClient | undefined;
    alive.add(socket);
    socket.on("pong", () => alive.add(socket));
    socket.send(welcome);
    socket.on("message", (data: RawData, isBinary: boolean) => {
      alive.add(socket);
      const receivedNs = process.hrtime.bigint();
      const text = isBinary ? "" : data.toString();
      const fast = ECHO_MESSAGE.exec(text);
      if (fast !== null) {
        echoAndNote(socket, text, Number(fast[1]), receivedNs, stall, send);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const msg = isBinary ? undefined : parseWith(clientWsMessageSchema, parsed);
      if (msg === undefined || !msg.ok) {
        socket.close(WS_CLOSE_BAD_MESSAGE, "not a tailprobe message");
        return;
      }
      if (msg.value.type === "echo") {
        echoAndNote(socket, data, msg.value.id, receivedNs, stall, send);
      } else if (msg.value.type === "health") {
        // A note before hello has nobody to count it for: dropped, not a protocol error.
        if (client !== undefined) hooks.onHealthNote?.(client, msg.value.samples);
      } else if (client === undefined) {
        client = {
          socket,
          clientId: msg.value.clientId,
          sessionId: msg.value.sessionId,
          address,
          remotePort,
          socketAddress,
        };
        hooks.onClient(client);
      }
    });
    socket.on("close", () => {
      release(key);
      if (client !== undefined) hooks.onClientGone(client);
    });
    socket.on("error", () => socket.terminate());
  });

  return {
    handleUpgrade(req, socket, head) {
      const pathname = (req.url ?? "").split("?")[0];
      if (pathname !== "/ws") {
        socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
        return;
      }
      const address = peerAddress(req);
      // IPv6 clients hold a /64 each: the cap is per /64, as for the request budgets.
      const key = limiterKey(address);
      const open = openByAddress.get(key) ?? 0;
      if (open >= limits.wsPerAddress) {
        const body = JSON.stringify({ error: "too many WebSockets from your address", code: "RATE_LIMITED" });
        socket.end(
          `HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${WS_RETRY_AFTER_S}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
        return;
      }
      // Counted from the upgrade on, so a burst of handshakes cannot slip past the cap.
      openByAddress.set(key, open + 1);
      let upgraded = false;
      socket.once("close", () => {
        if (!upgraded) release(key);
      });
      wss.handleUpgrade(req, socket, head, (ws) => {
        upgraded = true;
        wss.emit("connection", ws, req, address, key);
      });
    },
    close() {
      clearInterval(heartbeat);
      for (const c of wss.clients) c.terminate();
      wss.close();
    },
  };
}
