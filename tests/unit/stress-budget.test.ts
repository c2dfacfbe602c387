// The load paths' per-address budget on a stepped clock: bytes per rolling
// hour with the wait a refusal names, streams at once, the server-wide cap,
// bytes not moved given back, and bounded memory.
import { describe, expect, it } from "vitest";
import { StressBudget, STREAMS_RETRY_MS, type StressBudgetOptions } from "../../server/limits/stress-budget.js";
import { StressPacing } from "../../server/limits/stress-pacing.js";

const HOUR_MS = 3_600_000;

function budget(o: Partial<StressBudgetOptions> = {}) {
  let now = 0;
  const b = new StressBudget({
    perAddress: true,
    bytesPerHour: 3600,
    streamsPerAddress: 2,
    streamsMax: 3,
    addressesMax: 100,
    nowMs: () => now,
    ...o,
  });
  return { b, step: (ms: number) => (now += ms) };
}

describe("StressBudget", () => {
  it("grants up to the hour's bytes, then names the wait for the missing ones", () => {
    const { b } = budget();
    const a = b.take("1.2.3.4", 3000);
    expect(a.ok).toBe(true);
    if (a.ok) a.release(3000);
    // 600 bytes left, 1000 wanted: 400 bytes at 1 byte per second.
    expect(b.take("1.2.3.4", 1000)).toEqual({ ok: false, why: "bytes", retryAfterMs: 400_000 });
    // Another address has its own hour.
    expect(b.take("1.2.3.5", 1000).ok).toBe(true);
  });

  it("refills over a rolling hour, never beyond one hour's bytes", () => {
    const { b, step } = budget();
    const a = b.take("a", 3600);
    if (a.ok) a.release(3600);
    step(HOUR_MS / 2);
    expect(b.tokensOf("a")).toBeCloseTo(1800, 6);
    step(10 * HOUR_MS);
    expect(b.tokensOf("a")).toBe(3600);
  });

  it("gives back the bytes a stream was granted but did not move", () => {
    const { b } = budget();
    const a = b.take("a", 3000);
    expect(a.ok).toBe(true);
    if (a.ok) {
      a.release(1000);
      a.release(0); // a second release changes nothing
    }
    expect(b.tokensOf("a")).toBe(2600);
  });

  it("caps streams per address and server-wide, with a short wait", () => {
    const { b } = budget();
    const s1 = b.take("a", 1);
    const s2 = b.take("a", 1);
    expect(b.take("a", 1)).toEqual({ ok: false, why: "streams", retryAfterMs: STREAMS_RETRY_MS });
    const s3 = b.take("b", 1);
    expect(b.take("c", 1)).toEqual({ ok: false, why: "server-streams", retryAfterMs: STREAMS_RETRY_MS });
    expect(b.openStreams).toBe(3);
    if (s1.ok) s1.release(1);
    expect(b.take("a", 1).ok).toBe(true);
    for (const s of [s2, s3]) if (s.ok) s.release(1);
  });

  it("shares one budget across an IPv6 /64", () => {
    const { b } = budget();
    const a = b.take("2001:db8:1:2::1", 3600);
    if (a.ok) a.release(3600);
    expect(b.take("2001:db8:1:2::ffff", 1).ok).toBe(false);
    expect(b.take("2001:db8:1:3::1", 1).ok).toBe(true);
  });

  it("without per-address budgets only the server-wide cap holds", () => {
    const { b } = budget({ perAddress: false });
    expect(b.take("a", 1e12).ok).toBe(true);
    expect(b.take("a", 1e12).ok).toBe(true);
    expect(b.take("a", 1e12).ok).toBe(true);
    expect(b.take("a", 1).ok).toBe(false);
  });

  it("forgets the least recently seen idle address, never one holding a stream", () => {
    const { b } = budget({ addressesMax: 2, streamsPerAddress: 5, streamsMax: 50 });
    const held = b.take("x", 3600); // x spends everything and keeps its stream open
    const y = b.take("y", 3600);
    if (y.ok) y.release(3600);
    b.take("z", 1); // a third address: y (idle) is forgotten, x is not
    expect(b.tokensOf("y")).toBe(3600);
    expect(b.tokensOf("x")).toBe(0);
    if (held.ok) held.release(3600);
  });
});

describe("StressPacing", () => {
  const pacing = (mbps: number) => {
    let now = 0;
    const p = new StressPacing({ mbpsPerAddress: mbps, addressesMax: 100, nowMs: () => now });
    return { p, step: (ms: number) => (now += ms) };
  };
  // 8 Mbit/s = 1,000 bytes a millisecond.
  it("lets a burst go at once, then books each chunk at the rate, all of an address's streams together", () => {
    const { p } = pacing(8);
    expect(p.delayMs("a", "down", 10_000)).toBe(0); // 10 ms of sending, within the 20 ms burst
    expect(p.delayMs("a", "down", 10_000)).toBe(0); // now 20 ms ahead
    expect(p.delayMs("a", "down", 10_000)).toBe(0);
    // The virtual clock is 30 ms ahead, the burst 20: this chunk waits 10.
    expect(p.delayMs("a", "down", 10_000)).toBe(10);
    // A second stream of the same address queues behind the first's bookings.
    expect(p.delayMs("a", "down", 1000)).toBe(20);
    // The other direction, and another address, have clocks of their own.
    expect(p.delayMs("a", "up", 10_000)).toBe(0);
    expect(p.delayMs("b", "down", 10_000)).toBe(0);
  });

  it("over a long run moves the rate: 8 Mbit/s is 1,000 bytes a ms", () => {
    const { p, step } = pacing(8);
    let t = 0;
    let bytes = 0;
    for (let i = 0; i < 1000; i++) {
      const wait = p.delayMs("a", "down", 65_536);
      step(wait);
      t += wait;
      bytes += 65_536;
    }
    // The first 20 ms went ahead of the rate (the burst).
    expect(bytes / (t + 20 + 65.536)).toBeCloseTo(1000, 0);
  });

  it("0 paces nothing", () => {
    const { p } = pacing(0);
    for (let i = 0; i < 100; i++) expect(p.delayMs("a", "down", 1e9)).toBe(0);
  });
});
