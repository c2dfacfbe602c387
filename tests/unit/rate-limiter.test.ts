// Token buckets on a stepped clock: budgets, refill, Retry-After and bounded memory.
import { describe, expect, it } from "vitest";
import { limiterKey, RateLimiter, retryAfterSeconds } from "../../server/limits/rate-limiter.js";

function limiter(perSecond: number, burst: number, addressesMax = 100) {
  let now = 0;
  const l = new RateLimiter({ perSecond, burst, addressesMax, nowMs: () => now });
  return { l, step: (ms: number) => (now += ms) };
}

describe("RateLimiter", () => {
  it("allows a burst, then refuses with the wait until the next token", () => {
    const { l } = limiter(2, 3);
    for (let i = 0; i < 3; i++) expect(l.take("1.2.3.4")).toEqual({ ok: true });
    expect(l.take("1.2.3.4")).toEqual({ ok: false, retryAfterMs: 500 });
    // Another address has its own budget.
    expect(l.take("1.2.3.5")).toEqual({ ok: true });
  });

  it("refills at perSecond and never beyond the burst", () => {
    const { l, step } = limiter(10, 5);
    for (let i = 0; i < 5; i++) l.take("a");
    step(300); // 3 tokens
    let allowed = 0;
    for (let i = 0; i < 10; i++) if (l.take("a").ok) allowed++;
    expect(allowed).toBe(3);
    step(60_000);
    allowed = 0;
    for (let i = 0; i < 10; i++) if (l.take("a").ok) allowed++;
    expect(allowed).toBe(5);
  });

  it("a client hammering while refused does not dig itself deeper than one token", () => {
    const { l, step } = limiter(1, 1);
    l.take("a");
    for (let i = 0; i < 1000; i++) expect(l.take("a").ok).toBe(false);
    step(1000);
    expect(l.take("a").ok).toBe(true);
  });

  it("remembers at most addressesMax addresses, forgetting the least recently seen", () => {
    const { l } = limiter(1, 1, 50);
    for (let i = 0; i < 10_000; i++) l.take(`10.0.${i >> 8}.${i & 255}`);
    expect(l.size).toBe(50);
    l.take("9.9.9.9");
    expect(l.take("9.9.9.9").ok).toBe(false); // just seen: still remembered

    // Recency, not arrival: a, b, c arrive in that order, a is seen again, then d needs a slot.
    const { l: small } = limiter(1, 1, 3);
    for (const k of ["a", "b", "c"]) expect(small.take(k).ok).toBe(true);
    expect(small.take("a").ok).toBe(false);
    small.take("d");
    expect(small.take("a").ok).toBe(false); // seen since b: kept, its budget still spent
    expect(small.take("b").ok).toBe(true); // the least recently seen: forgotten, so it starts full
  });

  it("IPv6 addresses in one /64 share a budget", () => {
    expect(limiterKey("2001:db8:1:2::1")).toBe(limiterKey("2001:db8:1:2:ffff:eeee:dddd:cccc"));
    expect(limiterKey("2001:db8:1:2::1")).not.toBe(limiterKey("2001:db8:1:3::1"));
    expect(limiterKey("::1")).toBe("0:0:0:0::/64");
    expect(limiterKey("10.1.2.3")).toBe("10.1.2.3");
    const { l } = limiter(1, 2);
    expect(l.take("2001:db8::1").ok).toBe(true);
    expect(l.take("2001:db8::2").ok).toBe(true);
    expect(l.take("2001:db8::3").ok).toBe(false);
  });

  it("Retry-After is whole seconds, at least 1", () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
  });
});
