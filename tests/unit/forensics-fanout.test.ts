// Fan-out and hedging from measured pairs, checked against a simulation that
// plays out page views and hedged requests event by event.
import { describe, expect, it } from "vitest";
import { fanoutReport, shareAtOrBelow, viewsAtOrBeyond, viewsSlowerThan } from "../../shared/forensics/fanout.js";
import { percentileSorted } from "../../shared/stats.js";
import { prng } from "../helpers/prng.js";

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
    const r = prng(5);
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
    const r = prng(9);
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
});
