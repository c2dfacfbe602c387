// Baselines measured for a page whose WebSocket closes before they were pushed
// are not lost: a page of the same client that is already connected, or the
// next one to connect, carries them; ping readings it received itself are
// not handed over twice. Every wait is for an event (a frame answered, a
// push received), not a span of time: a loaded machine only makes it later.
import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { createBaselines, type Baselines } from "../../server/baseline/baselines.js";
import type { WsClient } from "../../server/echo/ws-echo.js";
import type { BaselineSample } from "../../shared/contract/index.js";
import { waitFor } from "../../testkit/server-process.js";

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
  return {
    socket: socket as unknown as WebSocket,
    clientId,
    sessionId,
    address: "127.0.0.1",
    remotePort,
    socketAddress: "127.0.0.1",
  };
}

/** Longest wait for an event that takes one or two 200 ms intervals on an idle machine (ms). */
const EVENT_WAIT_MS = 10_000;
/** Until the closing page answered its first frame and stopped taking pushes. */
const untilClosed = (s: FakeSocket) =>
  waitFor(() => (s.readyState === CLOSING ? true : undefined), EVENT_WAIT_MS, "the first pong");
const wspingsOf = (s: FakeSocket) => s.received.filter((x) => x.method === "wsping");
const noTcpInfo = {
  check: () => Promise.resolve({ available: false as const, code: "unsupported" as const, reason: "not in this test" }),
  read: () => Promise.reject(new Error("unused")),
};

let baselines: Baselines | undefined;
afterEach(() => baselines?.stop());

function start(ping: boolean): Baselines {
  baselines = createBaselines({
    serverName: "S",
    ping,
    nowMs: Date.now,
    log: () => {},
    intervalMs: 200,
    timeoutMs: 5000,
    tcpInfo: noTcpInfo,
    pingLingerMs: 100,
  });
  return baselines;
}

describe("baselines of a closed page", () => {
  it("go to the next page of the same client that connects, with new ids", async () => {
    const b = start(false);
    const closing = new FakeSocket({ pong: true, closeAfterFirstPong: true });
    const c1 = client(closing, "client-x", "session-1", 40001);
    b.onClient(c1);
    await untilClosed(closing);
    expect(closing.received).toEqual([]);
    b.onClientGone(c1);

    const next = new FakeSocket({ pong: false }); // its own frames would take 5 s to time out
    b.onClient(client(next, "client-x", "session-2", 40002));
    // Its own frames cannot have answered: a wsping it receives is the closed page's.
    const wsping = await waitFor(
      () => (wspingsOf(next).length > 0 ? wspingsOf(next) : undefined),
      EVENT_WAIT_MS,
      "the orphaned wsping",
    );
    expect(wsping).toHaveLength(1);
    expect(wsping[0]).toMatchObject({ target: "S", outcome: "ok" });
    const ids = next.received.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  // The second: exports publish sessionIds, so one alone must claim nothing.
  it.each([
    ["a page of another client", "client-y", "session-3", 40003],
    [
      "a page that says the closed page's sessionId (exports publish it) under another clientId",
      "client-thief",
      "session-1",
      40004,
    ],
  ] as const)("are not given to %s", async (_what, clientId, sessionId, port) => {
    const b = start(false);
    const closing = new FakeSocket({ pong: true, closeAfterFirstPong: true });
    const c1 = client(closing, "client-x", "session-1", 40001);
    b.onClient(c1);
    await untilClosed(closing);
    b.onClientGone(c1);
    // This page answers its own frames: once one of its own wspings reached
    // it, the first push to it (where handed-over samples go) is past.
    const other = new FakeSocket({ pong: true });
    const connectedAtMs = Date.now();
    b.onClient(client(other, clientId, sessionId, port));
    await waitFor(() => (wspingsOf(other).length > 0 ? true : undefined), EVENT_WAIT_MS, "the page's own wsping");
    expect(
      wspingsOf(other).filter((s) => s.t < connectedAtMs),
      "wspings measured before this page connected",
    ).toEqual([]);
  });

  it("go to a page of the same client that is already connected, without the ping readings it got itself", {
    timeout: 20_000,
  }, async () => {
    const b = start(true);
    const closing = new FakeSocket({ pong: true, closeAfterFirstPong: true });
    const c1 = client(closing, "client-x", "session-1", 40001);
    b.onClient(c1);
    const open = new FakeSocket({ pong: false });
    b.onClient(client(open, "client-x", "session-2", 40002));
    // Both pages are on 127.0.0.1: each ping reading is pushed to both, and piles up in the closing page's queue.
    await untilClosed(closing);
    await waitFor(
      () => (open.received.filter((s) => s.method === "ping").length >= 2 ? true : undefined),
      EVENT_WAIT_MS,
      "two ping readings",
    );
    b.onClientGone(c1);
    // The open page's own frames go unanswered, so an ok wsping is the closed
    // page's, handed over in the same push as the ping readings queued for it.
    await waitFor(
      () => (wspingsOf(open).some((s) => s.outcome === "ok") ? true : undefined),
      EVENT_WAIT_MS,
      "the handed-over samples",
    );
    const pings = open.received.filter((s) => s.method === "ping").map((s) => s.t);
    expect(new Set(pings).size, "no ping reading twice").toBe(pings.length);
    expect(
      wspingsOf(open).filter((s) => s.outcome === "ok"),
      "the closed page's wsping, once",
    ).toHaveLength(1);
  });
});
