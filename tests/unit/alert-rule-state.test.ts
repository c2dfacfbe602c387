// One rule on one series, evaluation after evaluation: the pending time, the
// hysteresis between threshold and clear, the minimum sample count and the
// flapping hold, on judgement sequences written out by hand.
import { describe, expect, it } from "vitest";
import { isFlapping, percentStateChange } from "../../server/alerts/flapping.js";
import { judge } from "../../server/alerts/judge.js";
import { initialState, step, type InstanceState, type Judgement } from "../../server/alerts/rule-state.js";
import { FLAP_DEFAULT, type AlertRule } from "../../server/alerts/rule.js";
import { emptyWindowCell } from "../../server/query/alert-window.js";
import { record } from "../../shared/rollup.js";

const INTERVAL_MS = 30_000;

function ruleWith(over: Partial<AlertRule> = {}, threshold: Partial<AlertRule["threshold"]> = {}): AlertRule {
  return {
    name: "Slow",
    group: "g",
    intervalMs: INTERVAL_MS,
    series: { methods: null, targets: null, client: "all" },
    statistic: "p99",
    windowMs: 300_000,
    threshold: { op: "above", value: 200, clear: 200, relative: false, baselineMs: 0, minDeltaMs: 0, ...threshold },
    minSamples: 1,
    forMs: 0,
    samples: "on-time",
    flapping: null,
    labels: {},
    annotations: {},
    origin: "test",
    ...over,
  };
}

/** Runs values through step() every INTERVAL_MS; null = too few samples, undefined = none at all. */
function run(rule: AlertRule, values: (number | null | undefined)[]) {
  let s: InstanceState = initialState();
  const events: { i: number; type: "firing" | "resolved" }[] = [];
  const phases: string[] = [];
  values.forEach((v, i) => {
    const j: Judgement = {
      value: v ?? null,
      samples: v === undefined ? 0 : v === null ? 3 : 1000,
      threshold: rule.threshold.value,
      clear: rule.threshold.clear,
    };
    const r = step(rule, s, j, i * INTERVAL_MS);
    s = r.state;
    if (r.transition !== null) events.push({ i, type: r.transition });
    phases.push(s.phase);
  });
  return { events, phases, state: s };
}

describe("a rule's state from evaluation to evaluation", () => {
  it("fires when over the threshold and resolves at clear", () => {
    const { events } = run(ruleWith(), [100, 250, 260, 150, 100]);
    expect(events).toEqual([
      { i: 1, type: "firing" },
      { i: 3, type: "resolved" },
    ]);
  });

  it("hysteresis: between clear and threshold it stays as it was, either way", () => {
    const r = ruleWith({}, { value: 200, clear: 150 });
    // 180 after firing: held; 180 before firing: not fired.
    expect(run(r, [180, 250, 180, 180, 160, 140]).events).toEqual([
      { i: 1, type: "firing" },
      { i: 5, type: "resolved" },
    ]);
    // The same series without hysteresis resolves at the first 180.
    expect(run(ruleWith(), [180, 250, 180, 180, 160, 140]).events).toEqual([
      { i: 1, type: "firing" },
      { i: 2, type: "resolved" },
    ]);
    // Around one threshold without hysteresis a noisy value swings every time; with it, once.
    const noisy = [210, 190, 210, 190, 210, 190, 120];
    expect(run(ruleWith(), noisy).events).toHaveLength(6);
    expect(run(r, noisy).events).toEqual([
      { i: 0, type: "firing" },
      { i: 6, type: "resolved" },
    ]);
  });

  it("below-rules mirror it (availability under 99 %, clear at 99.5 %)", () => {
    const r = ruleWith({ statistic: "availability" }, { op: "below", value: 99, clear: 99.5 });
    expect(run(r, [100, 98, 99.2, 99.7]).events).toEqual([
      { i: 1, type: "firing" },
      { i: 3, type: "resolved" },
    ]);
  });

  it("pending: fires only once bad for the whole `for`, and a good evaluation starts it over", () => {
    const r = ruleWith({ forMs: 3 * INTERVAL_MS });
    const { events, phases } = run(r, [250, 250, 100, 250, 250, 250, 250, 100]);
    expect(phases).toEqual(["pending", "pending", "inactive", "pending", "pending", "pending", "firing", "inactive"]);
    expect(events).toEqual([
      { i: 6, type: "firing" },
      { i: 7, type: "resolved" },
    ]);
  });

  it("below the minimum sample count nothing starts: pending starts over, firing is held, no samples resolves", () => {
    const r = ruleWith({ forMs: INTERVAL_MS });
    // null: samples under the minimum. A bad value then too few samples never fires.
    expect(run(r, [250, null, 250, null, 250, null]).events).toEqual([]);
    // Firing, then thin: held; then no samples at all (the series went away): resolved.
    expect(run(ruleWith(), [250, null, null, undefined]).events).toEqual([
      { i: 0, type: "firing" },
      { i: 3, type: "resolved" },
    ]);
  });
});

describe("flapping (Nagios' percent state change)", () => {
  /** Nagios' formula written out: transitions weighted 0.8 + 0.4·k/(n−2) over the 21-state window, /20. */
  function nagios(states: boolean[]): number {
    const w = 21;
    const padded = [...Array<boolean>(Math.max(0, w - states.length)).fill(states[0]!), ...states.slice(-w)];
    let sum = 0;
    for (let k = 0; k < w - 1; k++) if (padded[k] !== padded[k + 1]) sum += 0.8 + (0.4 * k) / (w - 2);
    return (sum / (w - 1)) * 100;
  }

  it("matches the formula on random histories", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) as number;
    for (let n = 0; n < 200; n++) {
      const len = 1 + Math.floor(rand() * 30);
      const h = Array.from({ length: len }, () => rand() < 0.4);
      expect(percentStateChange(h, 21)).toBeCloseTo(nagios(h), 9);
    }
    expect(
      percentStateChange(
        Array.from({ length: 21 }, (_, i) => i % 2 === 0),
        21,
      ),
    ).toBeCloseTo(100, 9);
    expect(percentStateChange([true, true, true], 21)).toBe(0);
  });

  it("starts above 20 %, stops only below 5 %", () => {
    const swings = [false, true, false, true, false]; // 4 recent changes ≈ 23 %
    expect(isFlapping(swings, false, FLAP_DEFAULT)).toBe(true);
    const calmer = [...swings, ...Array<boolean>(12).fill(false)];
    expect(percentStateChange(calmer, 21)).toBeGreaterThan(5);
    expect(isFlapping(calmer, true, FLAP_DEFAULT)).toBe(true); // still above stop
    expect(isFlapping(calmer, false, FLAP_DEFAULT)).toBe(false); // would not start
    expect(isFlapping(Array<boolean>(21).fill(false), true, FLAP_DEFAULT)).toBe(false);
  });

  it("a rule that swings every evaluation is held firing, then resolves once it settles", () => {
    const swinging = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 250 : 100));
    const settled = Array<number>(25).fill(100);
    const held = run(ruleWith({ flapping: FLAP_DEFAULT }), [...swinging, ...settled]);
    // The first swings are told (flapping is known only from the fourth change on: 4 × ~1.2 / 20 > 20 %),
    // then the rule is held firing: nothing through the remaining 15 swings.
    expect(held.events.map((e) => e.type)).toEqual(["firing", "resolved", "firing", "resolved", "firing", "resolved"]);
    expect(held.events.slice(0, 5).map((e) => e.i)).toEqual([0, 1, 2, 3, 4]);
    // Held through the calm too, until the change share fell under 5 %: then one resolved.
    expect(held.events[5]!.i).toBeGreaterThanOrEqual(swinging.length + 15);
    const unheld = run(ruleWith(), [...swinging, ...settled]);
    expect(unheld.events).toHaveLength(20);
  });

  it("a rule with `for` that flaps never fires without the hold, and fires with it", () => {
    const r = { forMs: 5 * INTERVAL_MS };
    const swinging = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 250 : 100));
    expect(run(ruleWith(r), swinging).events).toEqual([]);
    const held = run(ruleWith({ ...r, flapping: FLAP_DEFAULT }), swinging);
    expect(held.events).toHaveLength(1);
    expect(held.state.flapping).toBe(true);
    expect(held.state.phase).toBe("firing");
  });
});

describe("judging a window", () => {
  const cellOf = (latenciesMs: number[], failures = 0) => {
    const c = emptyWindowCell();
    for (const ms of latenciesMs) record(c.lat, ms * 1000);
    c.failures = failures;
    return c;
  };

  it("absolute: the statistic against the rule's numbers; thin windows are not judged", () => {
    const r = ruleWith({ minSamples: 100 });
    const values = Array.from({ length: 100 }, (_, i) => 10 + i);
    const j = judge(r, cellOf(values), undefined);
    expect(j.value).toBeCloseTo(108, -1); // p99 of 10..109 is 108, within 1 %
    expect(Math.abs(j.value! - 108) / 108).toBeLessThan(0.01);
    expect(judge(r, cellOf(values.slice(1)), undefined).value).toBeNull();
    expect(judge(r, cellOf(values.slice(1)), undefined).samples).toBe(99);
  });

  it("availability and failure rate count failures against ok samples", () => {
    const r = ruleWith({ statistic: "availability", minSamples: 10 });
    const j = judge(r, cellOf(Array<number>(95).fill(5), 5), undefined);
    expect(j.value).toBeCloseTo(95, 9);
    expect(j.samples).toBe(100);
    expect(
      judge({ ...r, statistic: "failure_rate" }, cellOf(Array<number>(95).fill(5), 5), undefined).value,
    ).toBeCloseTo(5, 9);
  });

  it("relative: factors of the baseline, at least min_delta above it; a thin baseline judges nothing", () => {
    const r = ruleWith(
      { minSamples: 50 },
      { relative: true, value: 2, clear: 1.5, baselineMs: 86_400_000, minDeltaMs: 20 },
    );
    const base = cellOf(Array<number>(60).fill(50));
    const j = judge(r, cellOf(Array<number>(60).fill(150)), base);
    expect(j.baseline).toBeCloseTo(50, 0);
    expect(j.threshold).toBeCloseTo(100, 0);
    expect(j.clear).toBeCloseTo(75, 0);
    // min_delta wins over a small baseline: 3 ms × 2 = 6 ms, but the threshold is 3 + 20.
    const small = judge(r, cellOf(Array<number>(60).fill(10)), cellOf(Array<number>(60).fill(3)));
    expect(small.threshold).toBeCloseTo(23, 0);
    expect(judge(r, cellOf(Array<number>(60).fill(150)), cellOf(Array<number>(49).fill(50))).value).toBeNull();
  });
});
