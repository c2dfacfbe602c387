// The outbox's promises, on its in-memory store with a fake fetch: rows go
// only after a 200, hopeless answers are dropped and counted, failures back
// off, and rows an earlier session left go first.
import { describe, expect, it, vi } from "vitest";
import type { Clock } from "../../client/src/common/clock.js";
import {
  FLUSH_INTERVAL_MS,
  Outbox,
  POSTPONE_MAX,
  predictedReportMs,
  REPORT_GUESS_MS,
  RETRY_AFTER_MS_MAX,
  RETRY_MS_FIRST,
  retryAfterMs,
  type OutboxOptions,
  type OutboxTransport,
} from "../../client/src/report/outbox.js";
import { MemoryStore } from "../../client/src/report/outbox-store.js";
import type { Sample } from "../../shared/contract/index.js";

const sample = (seq: number): Sample => ({
  seq,
  t: 1_700_000_000_000 + seq,
  method: "xhr",
  target: "A",
  ms: 1,
  outcome: "ok",
});

interface Call {
  sessionId: string;
  seqs: number[];
  keepalive: boolean;
}

function fakeTransport(answer: () => { status: number; body?: unknown }): {
  calls: Call[];
  transport: OutboxTransport;
} {
  const calls: Call[] = [];
  const transport: OutboxTransport = {
    fetch: (_url, init) => {
      const body = JSON.parse(String(init.body)) as { sessionId: string; samples: Sample[] };
      calls.push({
        sessionId: body.sessionId,
        seqs: body.samples.map((s) => s.seq),
        keepalive: init.keepalive === true,
      });
      const a = answer();
      return Promise.resolve(
        new Response(JSON.stringify(a.body ?? { accepted: body.samples.length, duplicates: 0 }), { status: a.status }),
      );
    },
  };
  return { calls, transport };
}

/** A clock that stands still unless the test moves it: backoff is then decided by the test alone. */
const stillClock = (): Clock & { advance(ms: number): void } => {
  let mono = 0;
  return {
    nowMs: () => 1_700_000_000_000 + mono,
    monoMs: () => mono,
    random: () => 0.5,
    advance: (ms) => (mono += ms),
  };
};

const options = (transport: OutboxTransport, clock: Clock, more: Partial<OutboxOptions> = {}): OutboxOptions => ({
  endpoint: "/api/samples",
  clientId: "client01",
  sessionId: "session1",
  clock,
  transport,
  ...more,
});

/** One request per pump: pumps a flush interval apart until nothing is pending (bounded). */
async function drain(outbox: Outbox, clock: Clock & { advance(ms: number): void }): Promise<void> {
  for (let i = 0; i < 50 && outbox.counters.pending > 0; i++) {
    clock.advance(FLUSH_INTERVAL_MS);
    outbox.pump();
    await new Promise((r) => setTimeout(r, 5));
  }
  await settle(outbox, (c) => c.pending === 0);
}

async function settle(outbox: Outbox, check: (c: Outbox["counters"]) => boolean): Promise<void> {
  await vi.waitFor(() => expect(check(outbox.counters)).toBe(true), { timeout: 2000, interval: 5 });
}

describe("outbox", () => {
  it("deletes rows only after the server's 200, and backs off after a failure", async () => {
    let status = 503;
    const { calls, transport } = fakeTransport(() => ({ status }));
    const clock = stillClock();
    const outbox = new Outbox(new MemoryStore(), options(transport, clock));
    await outbox.start();
    for (let i = 0; i < 3; i++) outbox.add(sample(i));
    await settle(outbox, (c) => c.pending === 3);
    outbox.pump();
    await settle(outbox, (c) => c.failures === 1);
    expect(outbox.counters.pending).toBe(3);
    // Backing off: with the clock standing still the next tick does not retry.
    outbox.pump();
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(1);
    // Past the backoff (RETRY_MS_FIRST × 0.75 jitter) and the flush interval, it does.
    clock.advance(Math.max(RETRY_MS_FIRST, FLUSH_INTERVAL_MS));
    outbox.pump();
    await settle(outbox, (c) => c.failures === 2);
    expect(calls).toHaveLength(2);
    // Hiding the page sends now, with keepalive, and the 200 clears the rows.
    status = 200;
    outbox.flushOnHide();
    await settle(outbox, (c) => c.pending === 0);
    expect(calls[2]).toEqual({ sessionId: "session1", seqs: [0, 1, 2], keepalive: true });
    expect(outbox.counters).toMatchObject({ delivered: 3, failures: 0, rejected: 0, storage: "memory" });
  });

  it.each([
    [409, { error: "no", code: "SESSION_CLIENT_MISMATCH" }],
    [400, { error: "no", code: "INVALID_BATCH" }],
  ])("drops and counts a whole batch answered %i (its envelope, not a sample, is wrong)", async (status, body) => {
    const { calls, transport } = fakeTransport(() => ({ status, body }));
    const outbox = new Outbox(new MemoryStore(), options(transport, stillClock()));
    await outbox.start();
    outbox.add(sample(0));
    outbox.add(sample(1));
    await settle(outbox, (c) => c.pending === 2);
    outbox.flushOnHide();
    await settle(outbox, (c) => c.pending === 0);
    expect(calls).toHaveLength(1);
    expect(outbox.counters).toMatchObject({ rejected: 2, delivered: 0, failures: 0 });
  });

  it.each([413, 400])("splits a batch refused %i without naming samples until the bad one is alone", async (status) => {
    // Sample 2 is "bad": any batch holding it is refused, anything else is stored.
    const { calls, transport } = fakeTransport(() => ({ status: 200 }));
    const inner = transport.fetch;
    transport.fetch = async (url, init) => {
      const body = JSON.parse(String(init.body)) as { samples: Sample[] };
      const res = await inner(url, init);
      return body.samples.some((x) => x.seq === 2) ? new Response('{"error":"no"}', { status }) : res;
    };
    const clock = stillClock();
    const outbox = new Outbox(new MemoryStore(), options(transport, clock));
    await outbox.start();
    for (let i = 0; i < 4; i++) outbox.add(sample(i));
    await settle(outbox, (c) => c.pending === 4);
    await drain(outbox, clock);
    expect(calls.map((c) => c.seqs)).toEqual([[0, 1, 2, 3], [0, 1], [2, 3], [2], [3]]);
    expect(outbox.counters).toMatchObject({ rejected: 1, delivered: 3 });
  });

  it("drops only the samples a 400 INVALID_SAMPLES names, and sends the rest in the next request", async () => {
    const bad = new Set([137, 300]);
    const { calls, transport } = fakeTransport(() => ({ status: 200 }));
    const inner = transport.fetch;
    transport.fetch = async (url, init) => {
      const body = JSON.parse(String(init.body)) as { samples: Sample[] };
      const rejected = body.samples.flatMap((x, index) =>
        bad.has(x.seq) ? [{ index, seq: x.seq, error: "target: 'Z' is not a server of this deployment" }] : [],
      );
      if (rejected.length === 0) return inner(url, init);
      calls.push({ sessionId: "", seqs: body.samples.map((x) => x.seq), keepalive: false });
      return new Response(JSON.stringify({ error: "refused", code: "INVALID_SAMPLES", rejected }), { status: 400 });
    };
    const clock = stillClock();
    const outbox = new Outbox(new MemoryStore(), options(transport, clock));
    await outbox.start();
    for (let i = 0; i < 500; i++) outbox.add(sample(i));
    await settle(outbox, (c) => c.pending === 500);
    await drain(outbox, clock);
    expect(calls.map((c) => c.seqs.length)).toEqual([500, 498]);
    expect(calls[1]!.seqs).not.toContain(137);
    expect(outbox.counters).toMatchObject({ rejected: 2, delivered: 498, failures: 0 });
  });

  it.each([429, 503])("keeps the rows on %i and retries only after Retry-After", async (status) => {
    let answer = status;
    const { calls, transport } = fakeTransport(() => ({ status: 200 }));
    const inner = transport.fetch;
    transport.fetch = async (url, init) => {
      const res = await inner(url, init);
      return answer === 200
        ? res
        : new Response('{"error":"later","code":"RATE_LIMITED"}', { status: answer, headers: { "Retry-After": "7" } });
    };
    const clock = stillClock();
    const outbox = new Outbox(new MemoryStore(), options(transport, clock));
    await outbox.start();
    outbox.add(sample(0));
    await settle(outbox, (c) => c.pending === 1);
    outbox.flushOnHide();
    await settle(outbox, (c) => c.failures === 1);
    answer = 200;
    clock.advance(6_900); // past the doubling backoff's first step, not past Retry-After
    outbox.pump();
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(1);
    expect(outbox.counters).toMatchObject({ pending: 1, rejected: 0 });
    clock.advance(200);
    outbox.pump();
    await settle(outbox, (c) => c.pending === 0);
    expect(calls).toHaveLength(2);
    expect(outbox.counters).toMatchObject({ delivered: 1, rejected: 0, failures: 0 });
  });

  it("waits for a gap the last reports fit in, and goes regardless after POSTPONE_MAX waits", async () => {
    const clock = stillClock();
    // Each request takes 200 ms on the test's clock: a slow commit on a busy server.
    const calls: number[] = [];
    const transport: OutboxTransport = {
      fetch: (_url, init) => {
        const body = JSON.parse(String(init.body)) as { samples: Sample[] };
        calls.push(body.samples.length);
        clock.advance(200);
        return Promise.resolve(
          new Response(JSON.stringify({ accepted: body.samples.length, duplicates: 0 }), { status: 200 }),
        );
      },
    };
    const outbox = new Outbox(new MemoryStore(), options(transport, clock));
    await outbox.start();
    const report = async (msToNextProbe: number, expectCalls: number) => {
      clock.advance(FLUSH_INTERVAL_MS);
      outbox.add(sample(calls.length * 10 + 1000 + clock.monoMs()));
      await settle(outbox, (c) => c.pending > 0);
      const now = clock.nowMs();
      // The scheduler's deadline (60 ms lead) is met every time; only the expected duration decides.
      outbox.pump(now + msToNextProbe - 60, now + msToNextProbe);
      await new Promise((r) => setTimeout(r, 20));
      expect(calls, `after a pump ${msToNextProbe} ms before the next probe`).toHaveLength(expectCalls);
    };
    // No report measured yet: the first is assumed quick (predictedReportMs([]) = 50 ms), and it goes (taking 200 ms).
    await report(150, 1);
    // Now 150 ms, and even 400 ms, before the next probe is too little after a 200 ms report: it waits…
    await report(150, 1);
    await report(400, 1);
    // …but goes in a gap of 450 ms (twice the slowest, and 10 ms more).
    await report(450, 2);
    // Too short POSTPONE_MAX times in a row: the next goes regardless, so the outbox still drains.
    for (let i = 0; i < POSTPONE_MAX; i++) await report(100, 2);
    await report(100, 3);
  });

  it("tries a postponed report again in the next gap, and forgets a round trip that spanned a stopped page", async () => {
    const clock = stillClock();
    const tookMs: number[] = [8000, 5, 5];
    const calls: number[] = [];
    const transport: OutboxTransport = {
      fetch: (_url, init) => {
        const body = JSON.parse(String(init.body)) as { samples: Sample[] };
        calls.push(body.samples.length);
        // The first round trip spans an 8 s SIGSTOP of the renderer.
        clock.advance(tookMs[calls.length - 1] ?? 5);
        return Promise.resolve(
          new Response(JSON.stringify({ accepted: body.samples.length, duplicates: 0 }), { status: 200 }),
        );
      },
    };
    const outbox = new Outbox(new MemoryStore(), options(transport, clock));
    await outbox.start();
    let seq = 0;
    const pumpAfter = async (ms: number, msToNextProbe: number) => {
      clock.advance(ms);
      outbox.add(sample(seq++));
      await settle(outbox, (c) => c.pending > 0);
      const now = clock.nowMs();
      outbox.pump(now + msToNextProbe - 60, now + msToNextProbe);
      await new Promise((r) => setTimeout(r, 20));
    };
    await pumpAfter(FLUSH_INTERVAL_MS, 200);
    expect(calls).toHaveLength(1);
    // 8 s is not remembered: a 5 ms report fits 200 ms before the next probe.
    await pumpAfter(FLUSH_INTERVAL_MS, 200);
    expect(calls).toHaveLength(2);
    // Too close to the next probe: postponed…
    await pumpAfter(FLUSH_INTERVAL_MS, 30);
    expect(calls).toHaveLength(2);
    // …and tried again a second later, not a flush interval later.
    await pumpAfter(1000, 200);
    expect(calls).toHaveLength(3);
  });

  it("predicts a report at twice the slowest recent round trip and 10 ms more", () => {
    expect(predictedReportMs([])).toBe(2 * REPORT_GUESS_MS + 10);
    expect(predictedReportMs([3, 80, 12])).toBe(170);
    // Quicker than the guess still counts as the guess: a fast loopback must not invite a collision.
    expect(predictedReportMs([1, 2])).toBe(2 * REPORT_GUESS_MS + 10);
  });

  it("reads Retry-After as seconds or an HTTP date, bounded", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterMs("7", now)).toBe(7000);
    expect(retryAfterMs(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
    expect(retryAfterMs("99999999", now)).toBe(RETRY_AFTER_MS_MAX);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it("delivers what a closed session left before its own samples, each under its own ids", async () => {
    const { calls, transport } = fakeTransport(() => ({ status: 200 }));
    const store = new MemoryStore();
    await store.put([0, 1].map((seq) => ({ sessionId: "oldsession", clientId: "client00", sample: sample(seq) })));
    await store.put([0].map((seq) => ({ sessionId: "livesession", clientId: "client09", sample: sample(seq) })));
    const outbox = new Outbox(
      store,
      options(transport, stillClock(), { liveSessions: () => Promise.resolve(new Set(["livesession"])) }),
    );
    outbox.add(sample(0));
    await outbox.start();
    await settle(outbox, (c) => c.delivered === 2);
    // Its own sample waits for a full batch or the flush interval; hiding the page sends it now.
    outbox.flushOnHide();
    await settle(outbox, (c) => c.delivered === 3);
    expect(calls.map((c) => c.sessionId)).toEqual(["oldsession", "session1"]);
    // Another open tab's rows are left to that tab.
    expect(await store.sessions()).toEqual(["livesession"]);
  });

  it("sends a free-text reason an older page stored as the nearest value of the vocabulary, or none", async () => {
    const bodies: Sample[][] = [];
    const transport: OutboxTransport = {
      fetch: (_url, init) => {
        const samples = (JSON.parse(String(init.body)) as { samples: Sample[] }).samples;
        bodies.push(samples);
        return Promise.resolve(
          new Response(JSON.stringify({ accepted: samples.length, duplicates: 0 }), { status: 200 }),
        );
      },
    };
    const store = new MemoryStore();
    // Rows as an older page wrote them: the type no longer admits their reasons.
    const failed = (seq: number, reason: string) =>
      ({ ...sample(seq), method: "best2", ms: null, outcome: "error", reason }) as unknown as Sample;
    const legacy: [stored: string, sent: string | null][] = [
      ["http-503", "http-5xx"],
      ["ws:ws-closed jsonp:timeout", "ws-closed"],
      ["other:network", "network"],
      ["ping: Network is unreachable", "ping-unavailable"],
      ["frozen", "frozen"],
      ["something else", null],
    ];
    await store.put(
      legacy.map(([reason], seq) => ({ sessionId: "oldsession", clientId: "client00", sample: failed(seq, reason) })),
    );
    const noLiveSessions = () => Promise.resolve(new Set<string>());
    const outbox = new Outbox(store, options(transport, stillClock(), { liveSessions: noLiveSessions }));
    await outbox.start();
    await settle(outbox, (c) => c.delivered === legacy.length);
    expect(bodies.flat().map((s) => s.reason ?? null)).toEqual(legacy.map(([, sent]) => sent));
  });
});
