// Fan-out and hedging from measured pairs, checked against a simulation that
// plays out page views and hedged requests event by event.
import { describe, expect, it } from "vitest";
import { fanoutReport, viewsAtOrBeyond, viewsSlowerThan } from "../../shared/forensics/fanout.js";
import { shareAtOrBelow } from "../../shared/stats.js";
import { percentileSorted } from "../../shared/stats.js";
import { mulberry32 } from "../../shared/prng.js";

/** Latency with a 2 % tail near 300 ms over a 20–30 ms body. */
function draw(r: () => number): number {
  return r() < 0.02 ? 250 + 100 * r() : 20 + 10 * r();
}

describe("fan-out", () => {
  it("the seed's arithmetic: a 1 % tail hits 1 − 0.99^10 ≈ 9.6 % of ten-request views", () => {
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1); // 1..100: 1 % above 99
    expect(viewsSlowerThan(sorted, 99, 10)).toBeCloseTo(1 - 0.99 ** 10, 12);
    expect(shareAtOrBelow(sorted, 99)).toBe(0.99);
    // "As slow as p99 or slower": the p99 sample itself counts, so 100 is beyond and 99 at.
    expect(viewsAtOrBeyond(sorted, 100, 10)).toBeCloseTo(1 - 0.99 ** 10, 12);
    expect(viewsAtOrBeyond(sorted, 99, 1)).toBeCloseTo(0.02, 12);
  });

  it("reports the share of views reaching the p99 as measured", () => {
    const pairs: [number, number][] = Array.from({ length: 29 }, (_, i) => [i + 1, 5]);
    // 29 samples: p99 is the maximum, reached by 1 request in 29.
    expect(fanoutReport(pairs, 10, 50).viewsSeeingP99).toBeCloseTo(1 - (28 / 29) ** 10, 12);
  });

  it("1 − F(x)^N matches simulated page views", () => {
    const r = mulberry32(5);
    const measured = Float64Array.from({ length: 20_000 }, () => draw(r)).sort();
    const x = percentileSorted(measured, 99)!;
    for (const n of [1, 5, 10, 30]) {
      const views = 20_000;
      let slow = 0;
      for (let v = 0; v < views; v++) {
        let any = false;
        // A view's requests are draws from the measured samples (the empirical distribution).
        for (let i = 0; i < n; i++) if (measured[Math.floor(r() * measured.length)]! > x) any = true;
        if (any) slow++;
      }
      const simulated = slow / views;
      const formula = viewsSlowerThan(measured, x, n);
      // Binomial standard error of the simulation, four of them.
      const se = Math.sqrt((formula * (1 - formula)) / views);
      expect(Math.abs(simulated - formula)).toBeLessThanOrEqual(4 * se + 1e-9);
    }
  });

  it("best-of-two and hedging match an event-by-event simulation of the same pairs", () => {
    const r = mulberry32(9);
    const pairs: [number, number][] = Array.from({ length: 5000 }, () => [draw(r), draw(r)]);
    const delayMs = 50;
    const report = fanoutReport(pairs, 10, delayMs);
    // Simulate: send to A at 0; if no answer by delayMs, send to B; the call ends at the first answer.
    const simulated: number[] = [];
    let sent = 0;
    for (const [a, b] of pairs) {
      const events = [{ at: a, leg: "A" }];
      sent++;
      if (a > delayMs) {
        events.push({ at: delayMs + b, leg: "B" });
        sent++;
      }
      simulated.push(Math.min(...events.map((e) => e.at)));
    }
    simulated.sort((x, y) => x - y);
    expect(report.hedged.p99).toBe(percentileSorted(simulated, 99));
    expect(report.hedged.requestsPerCall).toBeCloseTo(sent / pairs.length, 12);
    const best = pairs.map(([a, b]) => Math.min(a, b)).sort((x, y) => x - y);
    expect(report.bestOfTwo.p99).toBe(percentileSorted(best, 99));
    // With a 2 % tail per server, the tail of either strategy is far below one server's.
    expect(report.bestOfTwo.p99!).toBeLessThan(report.single.p99! / 3);
    expect(report.hedged.p99!).toBeLessThan(report.single.p99!);
    expect(report.pairs).toBe(5000);
  });

  it("the share of views reaching the p99 under best-of-two, hedging and a measured race matches simulated page views", () => {
    const r = mulberry32(21);
    const pairs: [number, number][] = Array.from({ length: 20_000 }, () => [draw(r), draw(r)]);
    const delayMs = 40;
    const n = 10;
    // The page's own race, simulated: both legs sent at once, the first answer wins.
    const raceMs = Array.from({ length: 20_000 }, () => Math.min(draw(r), draw(r)));
    const report = fanoutReport(pairs, n, delayMs, { target: "A+B", ms: raceMs });
    const p99 = report.p99Ms!;
    const views = 20_000;
    // One call of each strategy on a measured pair (or race) drawn at random, played out event by event.
    const calls: [string, number, () => number][] = [
      ["single", report.single.viewsSeeingP99, () => pairs[Math.floor(r() * pairs.length)]![0]],
      ["bestOfTwo", report.bestOfTwo.viewsSeeingP99, () => Math.min(...pairs[Math.floor(r() * pairs.length)]!)],
      [
        "hedged",
        report.hedged.viewsSeeingP99,
        () => {
          const [a, b] = pairs[Math.floor(r() * pairs.length)]!;
          return a <= delayMs ? a : Math.min(a, delayMs + b);
        },
      ],
      ["race", report.race!.viewsSeeingP99, () => raceMs[Math.floor(r() * raceMs.length)]!],
    ];
    for (const [name, formula, call] of calls) {
      let slow = 0;
      for (let v = 0; v < views; v++) {
        let any = false;
        for (let i = 0; i < n; i++) if (call() >= p99) any = true;
        if (any) slow++;
      }
      const se = Math.sqrt((formula * (1 - formula)) / views);
      expect(Math.abs(slow / views - formula), name).toBeLessThanOrEqual(4 * se + 1e-9);
    }
    // A 2 % tail per server: ten calls reach one server's p99 on about 1 − 0.99^10 of views, best-of-two on almost none.
    expect(report.single.viewsSeeingP99).toBeGreaterThan(0.05);
    expect(report.bestOfTwo.viewsSeeingP99).toBeLessThan(report.single.viewsSeeingP99 / 5);
    expect(report.race).toMatchObject({ target: "A+B", count: raceMs.length, requestsPerCall: 2 });
    expect(report.race!.p99).toBe(
      percentileSorted(
        [...raceMs].sort((x, y) => x - y),
        99,
      ),
    );
  });

  it("the legs of measured races give back the race: best-of-two of the legs is the race latency", () => {
    const r = mulberry32(33);
    // Simulated races: WebSocket leg to A, JSONP leg to B, both from the race's start.
    const legs: [number, number][] = Array.from({ length: 3000 }, () => [draw(r), draw(r)]);
    const raceMs = legs.map(([ws, jsonp]) => Math.min(ws, jsonp));
    const report = fanoutReport(legs, 5, 30, { target: "A+B", ms: raceMs });
    for (const k of ["p50", "p99", "p999"] as const) expect(report.bestOfTwo[k]).toBe(report.race![k]);
    expect(report.bestOfTwo.viewsSeeingP99).toBe(report.race!.viewsSeeingP99);
    expect(report.secondary.p50).toBe(
      percentileSorted(
        legs.map((l) => l[1]).sort((x, y) => x - y),
        50,
      ),
    );
  });

  it("no race stored: race is null", () => {
    expect(fanoutReport([[1, 2]], 10, 5).race).toBeNull();
    expect(fanoutReport([[1, 2]], 10, 5, { target: "A+B", ms: [] }).race).toBeNull();
  });
});
