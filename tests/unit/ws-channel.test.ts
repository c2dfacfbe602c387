// The probe page's WebSocket channel against a scripted socket and a fake
// clock: what it does when a server is down, blackholed, silent, or back.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CONNECT_TIMEOUT_MS,
  RECONNECT_MS_MAX,
  STALE_TIMEOUTS_MAX,
  WsChannel,
} from "../../client/src/probe/ws-channel.js";
import type { BaselineSample } from "../../shared/contract/index.js";

/** Just enough of the browser's WebSocket for the channel, driven by the test. */
class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static all: FakeSocket[] = [];
  readyState = FakeSocket.CONNECTING;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.readyState = FakeSocket.CLOSED;
    this.onclose?.();
  }
  // Test controls:
  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  echoLast(): void {
    this.onmessage?.({ data: this.sent[this.sent.length - 1] });
  }
}

const TIMEOUT_MS = 5000;
const baselines: BaselineSample[] = [];
let channel: WsChannel;
const latest = () => FakeSocket.all[FakeSocket.all.length - 1]!;
/** One clock tick: the page calls maintain() once a second. */
const tick = async (ms = 1000) => {
  await vi.advanceTimersByTimeAsync(ms);
  channel.maintain();
};

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  FakeSocket.all = [];
  vi.stubGlobal("WebSocket", FakeSocket);
  baselines.length = 0;
  channel = new WsChannel({
    url: "ws://b.test/ws",
    hello: { clientId: "client-1", sessionId: "session-1" },
    onBaseline: (_server, samples) => baselines.push(...samples),
  });
});
afterEach(() => {
  channel.close();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("WsChannel", () => {
  it("flags the first echo on each connection as fresh, and only that one", async () => {
    latest().open();
    const first = channel.echo(TIMEOUT_MS);
    latest().echoLast();
    const second = channel.echo(TIMEOUT_MS);
    latest().echoLast();
    expect(await first).toMatchObject({ outcome: "ok", fresh: true });
    expect(await second).toMatchObject({ outcome: "ok", fresh: false });
  });

  it("while the server is down, every echo fails at once (one sample per tick, no hang)", async () => {
    latest().close();
    for (let i = 0; i < 5; i++) {
      await tick();
      const r = await channel.echo(TIMEOUT_MS);
      expect(r.outcome).toBe("error");
      expect(r.endMs - r.startMs).toBe(0);
      if (latest().readyState === FakeSocket.CONNECTING) latest().close(); // refused again
    }
  });

  it("retries with backoff capped at RECONNECT_MS_MAX, and a reconnect is fresh again", async () => {
    latest().open();
    // The first connection's fresh echo is spent, so freshness after the reconnect is the reconnect's.
    const spent = channel.echo(TIMEOUT_MS);
    latest().echoLast();
    expect(await spent).toMatchObject({ outcome: "ok", fresh: true });
    const stale = channel.echo(TIMEOUT_MS);
    latest().echoLast();
    expect(await stale).toMatchObject({ outcome: "ok", fresh: false });
    latest().close(); // the server died
    const attemptsAt: number[] = [];
    for (let s = 0; s < 20; s++) {
      const before = FakeSocket.all.length;
      await tick();
      if (FakeSocket.all.length > before) {
        attemptsAt.push(performance.now());
        latest().close(); // still refused
      }
    }
    const gapsMs = attemptsAt.slice(1).map((t, i) => t - attemptsAt[i]!);
    expect(Math.max(...gapsMs)).toBeLessThanOrEqual(RECONNECT_MS_MAX + 1000);
    expect(gapsMs.at(-1)).toBeGreaterThan(1000); // it did back off
    // The server is back: the next attempt opens, and its first echo says so.
    await tick(RECONNECT_MS_MAX);
    latest().open();
    const r = channel.echo(TIMEOUT_MS);
    latest().echoLast();
    expect(await r).toMatchObject({ outcome: "ok", fresh: true });
    const next = channel.echo(TIMEOUT_MS);
    latest().echoLast();
    expect(await next).toMatchObject({ outcome: "ok", fresh: false });
  });

  it("abandons a connection attempt that hangs (blackholed host) after CONNECT_TIMEOUT_MS", async () => {
    const hanging = latest();
    let ticks = 0;
    while (latest() === hanging && ticks < 20) {
      await tick();
      ticks++;
    }
    expect(hanging.readyState).toBe(FakeSocket.CLOSED);
    expect(ticks * 1000).toBeGreaterThan(CONNECT_TIMEOUT_MS);
    expect(ticks * 1000).toBeLessThanOrEqual(CONNECT_TIMEOUT_MS + RECONNECT_MS_MAX + 2000);
  });

  it(`replaces an open socket whose echoes time out ${STALE_TIMEOUTS_MAX} times in a row (server lost power)`, async () => {
    const silent = latest();
    silent.open();
    const results = [];
    for (let i = 0; i < STALE_TIMEOUTS_MAX; i++) {
      const r = channel.echo(TIMEOUT_MS);
      await tick(TIMEOUT_MS);
      results.push(await r);
    }
    expect(results.map((r) => r.outcome)).toEqual(Array(STALE_TIMEOUTS_MAX).fill("timeout"));
    expect(silent.readyState).toBe(FakeSocket.CLOSED);
    await tick(RECONNECT_MS_MAX);
    expect(latest()).not.toBe(silent);
  });

  it("keeps a socket whose echoes answer, however slowly", async () => {
    const slow = latest();
    slow.open();
    for (let i = 0; i < STALE_TIMEOUTS_MAX + 2; i++) {
      const r = channel.echo(TIMEOUT_MS);
      await tick(TIMEOUT_MS - 100);
      slow.echoLast();
      expect((await r).outcome).toBe("ok");
    }
    expect(latest()).toBe(slow);
    expect(slow.readyState).toBe(FakeSocket.OPEN);
  });
});

describe("WsChannel served notes", () => {
  const welcome = (served: boolean) =>
    latest().onmessage?.({
      data: JSON.stringify(served ? { type: "welcome", name: "B", served: true } : { type: "welcome", name: "B" }),
    });

  it("keeps the echo's arrival as the latency and adds the server's time from the note", async () => {
    latest().open();
    welcome(true);
    const p = channel.echo(TIMEOUT_MS);
    await vi.advanceTimersByTimeAsync(30);
    latest().echoLast();
    await vi.advanceTimersByTimeAsync(5);
    latest().onmessage?.({ data: '{"type":"served","id":0,"serverMs":12.5}' });
    const r = await p;
    expect(r).toMatchObject({ outcome: "ok", serverMs: 12.5 });
    expect(r.endMs - r.startMs).toBe(30);
  });

  it("records the echo without server time when the note never comes", async () => {
    latest().open();
    welcome(true);
    const p = channel.echo(TIMEOUT_MS);
    latest().echoLast();
    await vi.advanceTimersByTimeAsync(2000);
    const r = await p;
    expect(r.outcome).toBe("ok");
    expect(r.serverMs).toBeUndefined();
  });

  it("does not wait for notes from a server that does not send them", async () => {
    latest().open();
    welcome(false);
    const p = channel.echo(TIMEOUT_MS);
    latest().echoLast();
    const r = await p;
    expect(r).toMatchObject({ outcome: "ok" });
    expect(r.serverMs).toBeUndefined();
  });

  it("takes an older peer's free-text baseline reasons as their nearest value; other errors still drop the message", () => {
    latest().open();
    const t = Date.now();
    const sample = (id: number, reason: string) => ({
      method: "ping",
      id,
      t,
      target: "B",
      ms: null,
      outcome: "error",
      reason,
    });
    const send = (samples: unknown[]) => latest().onmessage?.({ data: JSON.stringify({ type: "baseline", samples }) });
    send([
      sample(0, "ping: Network is unreachable"),
      sample(1, "Destination Host Unreachable"),
      sample(2, "late-reply"),
    ]);
    expect(baselines.map((b) => b.reason)).toEqual(["ping-unavailable", "icmp-unreachable", "late-reply"]);
    // Anything else in the message is checked as before: a bad sample still drops the message.
    send([{ ...sample(3, "frozen"), ms: "x" }]);
    expect(baselines).toHaveLength(3);
  });
});
