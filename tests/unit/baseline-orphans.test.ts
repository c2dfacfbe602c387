// Baselines measured for a page whose WebSocket closes before they were pushed
// are not lost: a page of the same client that is already connected, or the
// next one to connect, carries them; ping readings it received itself are
// not handed over twice.
import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { createBaselines, type Baselines } from "../../server/baseline/baselines.js";
import type { WsClient } from "../../server/echo/ws-echo.js";
import type { BaselineSample } from "../../shared/protocol.js";

const OPEN = 1;
const CLOSING = 2;

/** A page's socket: answers ping frames unless told not to; `closeAfterFirstPong` stops it taking pushes. */
class FakeSocket extends EventEmitter {
  readonly OPEN = OPEN;
  readyState = OPEN;
  readonly received: BaselineSample[] = [];
  constructor(private readonly o: { pong: boolean; closeAfterFirstPong?: boolean }) {
    super();
  }
  ping(id: string): void {
    if (!this.o.pong) return;
    setImmediate(() => {
      this.emit("pong", Buffer.from(id, "latin1"));
      if (this.o.closeAfterFirstPong) this.readyState = CLOSING;
    });
  }
  send(data: string): void {
    const msg = JSON.parse(data) as { type: string; samples: BaselineSample[] };
    if (msg.type === "baseline") this.received.push(...msg.samples);
  }
}

function client(socket: FakeSocket, clientId: string, sessionId: string, remotePort: number): WsClient {
  return { socket: socket as unknown as WebSocket, clientId, sessionId, address: "127.0.0.1", remotePort, socketAddress: "127.0.0.1" };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const noTcpInfo = {
  check: () => Promise.resolve({ available: false as const, reason: "not in this test" }),
  read: () => Promise.reject(new Error("unused")),
};

let baselines: Baselines | undefined;
afterEach(() => baselines?.stop());

function start(ping: boolean): Baselines {
  baselines = createBaselines({ serverName: "S", ping, nowMs: Date.now, log: () => {}, intervalMs: 200, timeoutMs: 5000, tcpInfo: noTcpInfo, pingLingerMs: 100 });
  return baselines;
}

describe("baselines of a closed page", () => {
  it("go to the next page of the same client that connects, with new ids", async () => {
    const b = start(false);
    const closing = new FakeSocket({ pong: true, closeAfterFirstPong: true });
    const c1 = client(closing, "client-x", "session-1", 40001);
    b.onClient(c1);
    await sleep(700); // a frame goes out at half an interval and is answered; the socket then takes no pushes
    expect(closing.received).toEqual([]);
    b.onClientGone(c1);

    const next = new FakeSocket({ pong: false }); // its own frames would take 5 s to time out
    b.onClient(client(next, "client-x", "session-2", 40002));
    await sleep(500);
    const wsping = next.received.filter((s) => s.method === "wsping");
    expect(wsping.length).toBeGreaterThanOrEqual(1);
    expect(wsping[0]).toMatchObject({ target: "S", outcome: "ok" });
    const ids = next.received.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("are not given to a page of another client", async () => {
    const b = start(false);
    const closing = new FakeSocket({ pong: true, closeAfterFirstPong: true });
    const c1 = client(closing, "client-x", "session-1", 40001);
    b.onClient(c1);
    await sleep(700);
    b.onClientGone(c1);
    const other = new FakeSocket({ pong: false });
    b.onClient(client(other, "client-y", "session-3", 40003));
    await sleep(500);
    expect(other.received.filter((s) => s.method === "wsping")).toEqual([]);
  });

  it("go to a page of the same client that is already connected, without the ping readings it got itself", { timeout: 20_000 }, async () => {
    const b = start(true);
    const closing = new FakeSocket({ pong: true, closeAfterFirstPong: true });
    const c1 = client(closing, "client-x", "session-1", 40001);
    b.onClient(c1);
    const open = new FakeSocket({ pong: false });
    b.onClient(client(open, "client-x", "session-2", 40002));
    // Both pages are on 127.0.0.1: each ping reading is pushed to both, and piles up in the closing page's queue.
    await sleep(3000);
    const pingsBefore = open.received.filter((s) => s.method === "ping").length;
    expect(pingsBefore, "ping readings reached the open page").toBeGreaterThanOrEqual(2);
    b.onClientGone(c1);
    await sleep(500);
    const pings = open.received.filter((s) => s.method === "ping").map((s) => s.t);
    expect(new Set(pings).size, "no ping reading twice").toBe(pings.length);
    expect(open.received.some((s) => s.method === "wsping" && s.outcome === "ok"), "the closed page's wsping arrived").toBe(true);
  });
});
