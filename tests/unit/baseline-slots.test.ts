// The server's per-page baseline work (a ping frame, the push of queued
// samples) is spread over the interval, each page in its own slot, and kept
// half an interval from the ss run: sent to every page in one pass, 2,000
// tabs made two stalls of 15-40 ms a second on the event loop that answers
// the echoes (docs/performance.md, capacity).
import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WebSocket } from "ws";
import { createBaselines, type Baselines } from "../../server/baseline/baselines.js";
import type { WsClient } from "../../server/echo/ws-echo.js";
import type { TcpInfoReader } from "../../server/baseline/tcp-info.js";

const INTERVAL_MS = 1000;
const PAGES = 100;

/** A page's socket that records when (fake ms) each ping frame and push reached it, and answers frames at once. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly frames: number[] = [];
  readonly pushes: number[] = [];
  ping(id: string): void {
    this.frames.push(Date.now());
    this.emit("pong", Buffer.from(id, "latin1"));
  }
  send(): void {
    this.pushes.push(Date.now());
  }
}

const clientOf = (socket: FakeSocket, i: number): WsClient => ({
  socket: socket as unknown as WebSocket,
  clientId: `c${i}`,
  sessionId: `s${i}`,
  address: "127.0.0.1",
  remotePort: 40000 + i,
  socketAddress: "127.0.0.1",
});

let baselines: Baselines | undefined;
afterEach(() => {
  baselines?.stop();
  vi.useRealTimers();
});

describe("baseline slots", () => {
  it("send each page's ping frame once an interval, spread over the middle half of it, away from the ss run", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
    const t0 = Date.now();
    const ssRunsAt: number[] = [];
    const tcpInfo: TcpInfoReader = {
      check: () => Promise.resolve({ available: true }),
      read: () => {
        ssRunsAt.push(Date.now() - t0);
        return Promise.resolve({ ok: true, value: new Map() });
      },
    };
    baselines = createBaselines({
      serverName: "S",
      ping: false,
      nowMs: Date.now,
      log: () => {},
      intervalMs: INTERVAL_MS,
      tcpInfo,
    });
    baselines.setLocalPort(1);
    const sockets = Array.from({ length: PAGES }, () => new FakeSocket());
    sockets.forEach((socket, i) => baselines!.onClient(clientOf(socket, i)));
    await vi.advanceTimersByTimeAsync(5 * INTERVAL_MS);

    // Every page: one frame an interval, one interval apart.
    for (const s of sockets) {
      expect(s.frames.length).toBeGreaterThanOrEqual(4);
      const gaps = s.frames.slice(1).map((t, i) => t - s.frames[i]!);
      for (const g of gaps) expect(g).toBeCloseTo(INTERVAL_MS, -1);
    }
    // In one interval, the frames land in many slots, none with more than its share.
    const phases = sockets.map((s) => (s.frames[1]! - t0) % INTERVAL_MS);
    const perSlot = new Map<number, number>();
    for (const p of phases) perSlot.set(Math.floor(p / 20), (perSlot.get(Math.floor(p / 20)) ?? 0) + 1);
    expect(perSlot.size, "slots used").toBeGreaterThanOrEqual(20);
    expect(Math.max(...perSlot.values()), "frames in the busiest slot").toBeLessThanOrEqual(Math.ceil(PAGES / 25));
    // ss runs once an interval; frames keep at least a quarter interval from it.
    expect(ssRunsAt.length).toBeGreaterThanOrEqual(4);
    const ssPhase = ssRunsAt[1]! % INTERVAL_MS;
    for (const p of phases) {
      const apart = Math.min(Math.abs(p - ssPhase), INTERVAL_MS - Math.abs(p - ssPhase));
      expect(apart).toBeGreaterThanOrEqual(INTERVAL_MS / 4 - 20);
    }
    // Each page's wsping results go out in its own slot too, not all at once.
    const pushPhases = new Set(sockets.map((s) => Math.floor(((s.pushes.at(-1)! - t0) % INTERVAL_MS) / 20)));
    expect(pushPhases.size, "slots the pushes went out in").toBeGreaterThanOrEqual(20);
  });

  it("a page that leaves frees its slot for the next", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
    const tcpInfo: TcpInfoReader = {
      check: () => Promise.resolve({ available: true }),
      read: () => Promise.resolve({ ok: true, value: new Map() }),
    };
    baselines = createBaselines({
      serverName: "S",
      ping: false,
      nowMs: Date.now,
      log: () => {},
      intervalMs: INTERVAL_MS,
      tcpInfo,
    });
    const first = new FakeSocket();
    const firstClient = clientOf(first, 0);
    baselines.onClient(firstClient);
    await vi.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    const firstPhase = first.frames.at(-1)! % INTERVAL_MS;
    baselines.onClientGone(firstClient);
    const second = new FakeSocket();
    baselines.onClient(clientOf(second, 1));
    await vi.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    // The slot nearest the window's centre is free again, so the second page takes it.
    expect(second.frames.at(-1)! % INTERVAL_MS).toBe(firstPhase);
  });
});
