// WebSocket abuse: what a hostile or broken client can make the server hold.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { RunningServer } from "../../server/app.js";
import { WS_PAYLOAD_BYTES_MAX } from "../../server/echo/ws-echo.js";
import { WS_SEND_BUFFER_BYTES_MAX } from "../../server/limits/limits-config.js";
import { startInProcess } from "../helpers/in-process.js";

const HEARTBEAT_MS = 300;
const WS_PER_ADDRESS = 3;
let server: RunningServer;
beforeAll(async () => {
  server = await startInProcess([
    "--ws-heartbeat-ms",
    String(HEARTBEAT_MS),
    "--ws-per-address",
    String(WS_PER_ADDRESS),
  ]);
});
afterAll(async () => {
  await server.close();
});

const wsUrl = () => `${server.url.replace("http", "ws")}/ws`;

function open(options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl(), { perMessageDeflate: false, ...options });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

function closed(ws: WebSocket, withinMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`still open after ${withinMs} ms`)), withinMs);
    ws.once("close", (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

describe("WebSocket abuse", () => {
  it("an oversized frame is closed with 1009", async () => {
    const ws = await open();
    const done = closed(ws, 5000);
    ws.send("x".repeat(WS_PAYLOAD_BYTES_MAX + 1));
    expect(await done).toBe(1009);
  });

  it(`one address may hold ${WS_PER_ADDRESS} sockets; the next upgrade is 429 with Retry-After, and a freed slot is reusable`, async () => {
    const held = await Promise.all(Array.from({ length: WS_PER_ADDRESS }, () => open()));
    const refused = new WebSocket(wsUrl());
    const res = await new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      refused.once("unexpected-response", (_req, r) =>
        resolve({ status: r.statusCode ?? 0, retryAfter: r.headers["retry-after"] as string }),
      );
      refused.once("open", () => reject(new Error("opened past the cap")));
    });
    expect(res.status).toBe(429);
    expect(Number(res.retryAfter)).toBeGreaterThan(0);
    const first = held[0]!;
    const gone = closed(first, 5000);
    first.close();
    await gone;
    // The server sees the close a moment after the client: retry briefly.
    let again: WebSocket | undefined;
    for (let i = 0; i < 50 && again === undefined; i++) {
      again = await open().catch(() => undefined);
      if (again === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    expect(again?.readyState).toBe(WebSocket.OPEN);
    for (const ws of [...held.slice(1), again!]) ws.close();
    await Promise.all([...held.slice(1), again!].map((ws) => closed(ws, 5000)));
  });

  it("a dead peer (never answers a ping frame) is terminated by the heartbeat", async () => {
    const ws = await open({ autoPong: false });
    const startMs = performance.now();
    const code = await closed(ws, HEARTBEAT_MS * 10);
    expect(code).toBe(1006); // terminated: no close frame
    expect(performance.now() - startMs).toBeGreaterThanOrEqual(HEARTBEAT_MS * 0.9);
  });

  it("a live peer (answers ping frames) outlasts many heartbeats", async () => {
    const ws = await open();
    await new Promise((r) => setTimeout(r, HEARTBEAT_MS * 5));
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
    await closed(ws, 5000);
  });

  it("a client that never reads is closed once its send buffer passes the bound", async () => {
    // A heartbeat far away, so only the send-buffer bound can close it within the test.
    const quiet = await startInProcess(["--ws-heartbeat-ms", "600000"]);
    const ws = new WebSocket(`${quiet.url.replace("http", "ws")}/ws`, { perMessageDeflate: false });
    await new Promise((resolve) => ws.once("open", resolve));
    // Stop reading: the server's replies pile up in the kernel and then in its send buffer.
    const raw = (ws as unknown as { _socket: import("node:net").Socket })._socket;
    raw.pause();
    const padded = `{"type":"echo","id":1}${" ".repeat(WS_PAYLOAD_BYTES_MAX - 40)}`;
    // Enough replies to fill loopback's kernel buffers (a few MB) and the bound several times over.
    const messages = Math.ceil((64 * 1024 * 1024 + 8 * WS_SEND_BUFFER_BYTES_MAX) / padded.length);
    let replies = 0;
    ws.on("message", () => replies++);
    const done = closed(ws, 30_000);
    for (let i = 0; i < messages && ws.readyState === WebSocket.OPEN; i++) {
      ws.send(padded);
      if (i % 256 === 0) await new Promise((r) => setImmediate(r));
    }
    raw.resume();
    expect(await done).toBe(1006);
    expect(replies).toBeLessThan(messages);
    await quiet.close();
  }, 40_000);
});
