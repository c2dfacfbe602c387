// The attribution rules on hand-built cases: each cause, its sentence, and
// the order in which the rules apply when two could.
import { describe, expect, it } from "vitest";
import { attribute, breakdown, seriesKey, type ForensicSample } from "../../shared/forensics/attribution.js";
import { compareSeries } from "../../shared/forensics/compare.js";
import { mulberry32 } from "../../shared/prng.js";

const T = 1_763_900_000_000;

function s(method: string, target: string, ms: number | null, more: Partial<ForensicSample> = {}): ForensicSample {
  return {
    method,
    target,
    t: T,
    ms,
    outcome: ms === null ? "error" : "ok",
    lateMs: method === "ping" || method === "wsping" || method === "tcprtt" ? null : 2,
    visibleAtSend: null,
    visibleAtReply: null,
    hiddenMs: null,
    froze: null,
    fresh: null,
    serverMs: null,
    serverLagMs: null,
    ...more,
  };
}

const typicalMs = Object.fromEntries(
  ["A", "B"].flatMap((target) =>
    [
      ["xhr", 40],
      ["jsonp", 42],
      ["ws", 38],
      ["ping", 35],
      ["wsping", 36],
    ].map(([m, v]) => [seriesKey(m as string, target), v as number]),
  ),
);

/** A quiet second for server `target`: every method at its typical latency. */
function quiet(target: string): ForensicSample[] {
  return [
    s("xhr", target, 41),
    s("jsonp", target, 43),
    s("ws", target, 39),
    s("ping", target, 35),
    s("wsping", target, 37),
  ];
}

describe("attribution rules", () => {
  it("client: the tab was hidden and the tick fired 870 ms late", () => {
    const slow = s("xhr", "A", 950, { visibleAtSend: false, hiddenMs: 30_000, lateMs: 870 });
    const v = attribute({ sample: slow, neighbours: [...quiet("A"), ...quiet("B")], typicalMs });
    expect(v.cause).toBe("client");
    expect(v.text).toBe("client: the tab was hidden and the tick fired 870 ms late");
  });

  it("client: a busy main thread shows as a late tick of another probe in the same second", () => {
    const slow = s("ws", "B", 820);
    const late = s("jsonp", "A", 40, { t: T + 500, lateMs: 790 });
    const v = attribute({ sample: slow, neighbours: [...quiet("B"), late], typicalMs });
    expect(v.cause).toBe("client");
    expect(v.text).toContain("fired 790 ms late");
  });

  it("network: ping to this client spiked to 400 ms in the same second", () => {
    const slow = s("ws", "A", 430);
    const v = attribute({
      sample: slow,
      neighbours: [s("ping", "A", 400, { t: T + 300 }), s("xhr", "B", 41)],
      typicalMs,
    });
    expect(v).toMatchObject({ cause: "network", target: "A" });
    expect(v.text).toBe("network: Ping (ICMP) to this client spiked to 400 ms in the same second");
  });

  it("a tick a little late on a busy machine does not hide a network spike four times its size", () => {
    const slow = s("xhr", "B", 430);
    const neighbours = [s("jsonp", "A", 40, { t: T + 300, lateMs: 169 }), s("wsping", "B", 449, { t: T + 200 })];
    const v = attribute({ sample: slow, neighbours, typicalMs });
    expect(v.cause).toBe("network");
    expect(v.text).toBe("network: WebSocket ping frame to this client spiked to 449 ms in the same second");
  });

  it("server B: 120 ms in its own handler, before a network spike it would itself explain", () => {
    const slow = s("xhr", "B", 165, { serverMs: 120 });
    const v = attribute({ sample: slow, neighbours: [...quiet("B")], typicalMs });
    expect(v).toMatchObject({ cause: "server", target: "B", text: "server B: 120 ms in its own handler" });
  });

  it("server time too small for the excess does not make it the server's fault", () => {
    const slow = s("xhr", "B", 300, { serverMs: 25 });
    const v = attribute({ sample: slow, neighbours: [], typicalMs });
    expect(v.cause).toBe("unexplained");
  });

  it("HTTP: XHR and JSONP slow while WebSocket and its ping frame were not", () => {
    const slow = s("xhr", "A", 250, { serverMs: 0.2 });
    const neighbours = [s("jsonp", "A", 240), s("ws", "A", 39), s("wsping", "A", 37), s("ping", "A", 35)];
    const v = attribute({ sample: slow, neighbours, typicalMs });
    expect(v).toMatchObject({
      cause: "http",
      target: "A",
      text: "HTTP: XHR and JSONP slow while WebSocket and its ping frame were not",
    });
  });

  it("unexplained when no rule matches, with every check in the evidence", () => {
    const slow = s("ws", "A", 250, { serverMs: 0.1 });
    const v = attribute({ sample: slow, neighbours: quiet("A"), typicalMs });
    expect(v.cause).toBe("unexplained");
    expect(v.evidence.length).toBeGreaterThanOrEqual(4);
  });

  it("a probe at its usual latency is not an outlier", () => {
    expect(attribute({ sample: s("ws", "A", 45), neighbours: [], typicalMs }).cause).toBe("normal");
  });

  it("neighbours outside the same second are not evidence", () => {
    const slow = s("ws", "A", 430);
    const v = attribute({ sample: slow, neighbours: [s("ping", "A", 400, { t: T + 5000 })], typicalMs });
    expect(v.cause).toBe("unexplained");
  });

  it("breakdown: late + server + path + rest", () => {
    const slow = s("xhr", "B", 165, { serverMs: 120, lateMs: 3 });
    const b = breakdown({
      sample: slow,
      neighbours: [s("ping", "B", 30, { t: T + 200 }), s("wsping", "B", 33, { t: T + 900 })],
      typicalMs,
    });
    expect(b).toEqual({ lateMs: 3, totalMs: 165, serverMs: 120, pathMs: 30, pathMethod: "ping", restMs: 15 });
  });
});

describe("comparison sentence", () => {
  it("says which is faster at p99 with its interval, and whether the rank test calls it noise", () => {
    const r = mulberry32(3);
    const ws = Array.from({ length: 3000 }, () => (r() < 0.02 ? 60 + 20 * r() : 30 + 5 * r()));
    const xhr = Array.from({ length: 3000 }, () => (r() < 0.02 ? 180 + 30 * r() : 33 + 5 * r()));
    const c = compareSeries(ws, xhr, { a: "WebSocket", b: "XHR" }, { random: mulberry32(1), resamples: 1000 });
    expect(c.p99Diff.hi).toBeLessThan(0);
    expect(c.rank.p).toBeLessThan(0.05);
    expect(c.sentence).toMatch(
      /^WebSocket is faster than XHR at p99 by \d+–\d+ ms \(95 % CI\); faster at the median by/,
    );
    expect(c.sentence).toContain("not noise");
  });

  it("two draws of one distribution: no difference beyond noise", () => {
    const r = mulberry32(4);
    const a = Array.from({ length: 2000 }, () => 30 + 5 * r());
    const b = Array.from({ length: 2000 }, () => 30 + 5 * r());
    const c = compareSeries(a, b, { a: "A", b: "B" }, { random: mulberry32(2), resamples: 500 });
    expect(c.sentence).toContain("do not differ at p99 beyond noise");
    expect(c.p99Diff.lo).toBeLessThanOrEqual(0);
    expect(c.p99Diff.hi).toBeGreaterThanOrEqual(0);
  });
});
