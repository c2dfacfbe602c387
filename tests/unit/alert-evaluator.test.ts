// Rules and built-in sources on synthetic series, evaluated every 30 s over a
// clock the test moves: windows of whole 5-minute buckets, the minimum
// sample count, hidden and throttled tabs judged as such, per-client series,
// a baseline a day back, the dead-man, TargetDown and TailRegression.
import { describe, expect, it } from "vitest";
import { RuleEvaluator } from "../../server/alerts/evaluator.js";
import type { ChangeView, IncidentView } from "../../server/alerts/feeds.js";
import { checkNoReports } from "../../server/alerts/no-reports.js";
import { TAIL_LATENCY_HIGH, type AlertRule } from "../../server/alerts/rule.js";
import { TailRegression } from "../../server/alerts/tail-regression.js";
import { TargetDown } from "../../server/alerts/target-down.js";
import { percentileSorted } from "../../shared/stats.js";
import { mulberry32 as prng } from "../../shared/prng.js";
import { fakeHealthFeed } from "../helpers/fake-health.js";
import {
  BUCKET_MS,
  manualClock,
  recordingSink,
  syntheticReader,
  type SyntheticSample,
} from "../helpers/alert-series.js";

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const EVAL_MS = 30_000;

function rule(over: Partial<AlertRule> = {}, threshold: Partial<AlertRule["threshold"]> = {}): AlertRule {
  return {
    name: "Slow",
    group: "g",
    intervalMs: EVAL_MS,
    series: { methods: ["ws"], targets: null, client: "all" },
    statistic: "p99",
    windowMs: 5 * 60_000,
    threshold: { op: "above", value: 200, clear: 200, relative: false, baselineMs: 0, minDeltaMs: 0, ...threshold },
    minSamples: 100,
    forMs: 0,
    samples: "on-time",
    flapping: null,
    labels: {},
    annotations: {},
    origin: "test",
    ...over,
  };
}

/** One sample per period from fromMs to toMs, latency from fn(t) (null = failure). */
function stream(
  fromMs: number,
  toMs: number,
  periodMs: number,
  fn: (t: number) => number | null,
  extra: Partial<SyntheticSample> = {},
): SyntheticSample[] {
  const out: SyntheticSample[] = [];
  for (let t = fromMs; t < toMs; t += periodMs)
    out.push({ t, method: "ws", target: "B", ms: fn(t), lateMs: 3, ...extra });
  return out;
}

/** Evaluates the rules every EVAL_MS from fromMs to toMs, with the samples sent up to each moment. */
async function evaluateOver(rules: AlertRule[], samples: SyntheticSample[], fromMs: number, toMs: number) {
  const clock = manualClock(fromMs);
  const sink = recordingSink();
  const sent = samples.filter(() => true);
  const read = syntheticReader(sent);
  const ev = new RuleEvaluator({
    rules,
    read: (a, b) => read(a, Math.min(b, clock.nowMs())),
    publicId: (k) => `pub-${k}`,
    sink,
    nowMs: clock.nowMs,
    link: () => "",
  });
  for (let t = fromMs; t <= toMs; t += EVAL_MS) {
    clock.set(t);
    await ev.evaluate(rules);
  }
  return sink.calls;
}

describe("rules on synthetic series", () => {
  it("no alert below the minimum sample count, however bad the samples", async () => {
    // Every sample 300 ms, but one every 10 s: a 5m window holds 30-60 samples, under 100.
    const sparse = stream(T0, T0 + 3_600_000, 10_000, () => 300);
    expect(await evaluateOver([rule()], sparse, T0, T0 + 3_600_000)).toEqual([]);
    // The same at 1 Hz fires, once the window holds 100 samples (100 s in).
    const dense = stream(T0, T0 + 3_600_000, 1000, () => 300);
    const calls = await evaluateOver([rule()], dense, T0, T0 + 3_600_000);
    expect(calls.map((c) => c.type)).toEqual(["fire"]);
    expect(calls[0]!.atMs).toBe(T0 + 4 * EVAL_MS); // 120 s: the first evaluation with ≥ 100 samples
    expect(calls[0]!.labels).toEqual({ alertname: "Slow", target: "B", method: "ws" });
  });

  it("the p99 it judges is the window's nearest rank within 1 %", async () => {
    const r = prng(11);
    const samples = stream(T0, T0 + 600_000, 250, () => Math.exp(3 + r() * 2));
    const seen: number[] = [];
    const any = rule({ minSamples: 1 }, { value: 0, clear: 0 });
    const ev = new RuleEvaluator({
      rules: [any],
      read: syntheticReader(samples),
      publicId: (k) => k,
      sink: {
        fire: async (req) => void seen.push(Number.parseFloat(req.annotations.value ?? "NaN")),
        resolve: async () => {},
        isFiring: () => false,
      },
      nowMs: () => T0 + 600_000 - 1,
      link: () => "",
    });
    await ev.evaluate([any]);
    // The window: buckets overlapping [now − 5 min, now] = both 5-minute buckets.
    const exact = percentileSorted(
      samples.map((s) => s.ms!).sort((a, b) => a - b),
      99,
    )!;
    expect(seen).toHaveLength(1);
    expect(Math.abs(seen[0]! - exact) / exact).toBeLessThan(0.01 + 0.005); // ±1 %, and 3 significant digits shown
  });

  it("a throttled background tab is not an outage; a hidden tab on time is judged", async () => {
    const avail = rule({ statistic: "availability", minSamples: 60 }, { op: "below", value: 99, clear: 99 });
    const healthy = stream(T0, T0 + 1_200_000, 1000, () => 5, { client: "visible-tab" });
    // A background tab whose ticks fire late (throttled) and whose probes time out.
    const throttled = stream(T0, T0 + 1_200_000, 1000, () => null, { client: "bg", hidden: true, lateMs: 900 });
    const onTime = await evaluateOver([avail], [...healthy, ...throttled], T0, T0 + 1_200_000);
    expect(onTime).toEqual([]);
    expect(
      await evaluateOver([{ ...avail, samples: "all" }], [...healthy, ...throttled], T0, T0 + 1_200_000),
    ).toHaveLength(1);
    // A hidden tab whose ticks are on time (the worker clock) and fail is judged as on time...
    const hiddenOnTime = stream(T0, T0 + 1_200_000, 1000, () => null, { client: "bg", hidden: true, lateMs: 2 });
    expect(await evaluateOver([avail], [...healthy, ...hiddenOnTime], T0, T0 + 1_200_000)).toHaveLength(1);
    // ...and left out when the rule asks for visible samples only.
    expect(
      await evaluateOver([{ ...avail, samples: "visible" }], [...healthy, ...hiddenOnTime], T0, T0 + 1_200_000),
    ).toEqual([]);
    // Skipped ticks (a frozen tab) are neither samples nor failures.
    const frozen = stream(T0, T0 + 1_200_000, 1000, () => null, { client: "bg", skipped: true });
    expect(await evaluateOver([{ ...avail, samples: "all" }], [...healthy, ...frozen], T0, T0 + 1_200_000)).toEqual([]);
  });

  it("client: each raises one alert per client, by public id, for the slow one only", async () => {
    const fast = stream(T0, T0 + 900_000, 1000, () => 20, { client: "c1" });
    const slow = stream(T0, T0 + 900_000, 1000, () => 400, { client: "c2" });
    const calls = await evaluateOver(
      [rule({ series: { methods: ["ws"], targets: ["B"], client: "each" } })],
      [...fast, ...slow],
      T0,
      T0 + 900_000,
    );
    expect(calls.map((c) => c.labels)).toEqual([{ alertname: "Slow", target: "B", method: "ws", client: "pub-c2" }]);
    // All clients together: c2's 400 ms is half the window, so the p99 is over 200: one alert, no client label.
    const together = await evaluateOver([rule()], [...fast, ...slow], T0, T0 + 900_000);
    expect(together.map((c) => c.labels)).toEqual([{ alertname: "Slow", target: "B", method: "ws" }]);
  });

  it("TailLatencyHigh: p99 over 15 minutes against the same hours the day before", async () => {
    const day = 86_400_000;
    const r = prng(5);
    const body = () => 20 + r() * 10;
    // Yesterday: p99 ~30 ms. Today: the same for an hour, then a tail at ~100-150 ms in 3 % of probes.
    const yesterday = stream(T0 - day, T0 - day + 2 * 3_600_000, 1000, body);
    const today = stream(T0, T0 + 2 * 3_600_000, 1000, (t) =>
      t >= T0 + 3_600_000 && r() < 0.03 ? 100 + 50 * r() : body(),
    );
    const calls = await evaluateOver([TAIL_LATENCY_HIGH], [...yesterday, ...today], T0, T0 + 2 * 3_600_000);
    expect(calls.map((c) => c.type)).toEqual(["fire"]);
    const firedAt = calls[0]!.atMs!;
    // Pending for 5 minutes after the window's p99 first passes 2× (and +20 ms): within the first 15 minutes.
    expect(firedAt).toBeGreaterThan(T0 + 3_600_000 + 5 * 60_000);
    expect(firedAt).toBeLessThan(T0 + 3_600_000 + 20 * 60_000);
    expect(calls[0]!.annotations!.summary).toMatch(/^p99 of ws B over 15m: [\d.]+ ms, above [\d.]+ ms$/);
    // Without yesterday's data there is no baseline: nothing is judged.
    expect(await evaluateOver([TAIL_LATENCY_HIGH], today, T0, T0 + 2 * 3_600_000)).toEqual([]);
  });
});

describe("the dead-man (NoReports)", () => {
  it("fires once nothing was reported for `after`, resolves on the next report, and never fires on an empty store", async () => {
    const clock = manualClock(T0);
    const sink = recordingSink();
    let newest: number | null = null;
    const check = () =>
      checkNoReports({
        afterMs: 10 * 60_000,
        serverName: "A",
        newestSampleMs: async () => newest,
        sink,
        nowMs: clock.nowMs,
        link: () => "",
      });
    for (let i = 0; i < 40; i++, clock.advance(EVAL_MS)) await check();
    expect(sink.calls).toEqual([]); // never a report: nothing stopped
    newest = clock.nowMs();
    const lastReport = newest;
    for (let i = 0; i < 19; i++, clock.advance(EVAL_MS)) await check();
    expect(sink.calls).toEqual([]); // 9.5 minutes of silence
    clock.advance(EVAL_MS);
    await check();
    expect(sink.calls).toHaveLength(1);
    expect(sink.calls[0]).toMatchObject({
      type: "fire",
      labels: { alertname: "NoReports", target: "A" },
      atMs: lastReport + 10 * 60_000,
    });
    for (let i = 0; i < 10; i++, clock.advance(EVAL_MS)) await check();
    expect(sink.calls).toHaveLength(1); // once
    newest = clock.nowMs() - 2000;
    await check();
    expect(sink.calls.map((c) => c.type)).toEqual(["fire", "resolve"]);
  });
});

describe("TargetDown from the health feed", () => {
  const incident = (over: Partial<IncidentView> = {}): IncidentView => ({
    id: "i1",
    target: "B",
    kind: "down",
    start: T0,
    end: null,
    verdict: "server",
    summary: "B down: failing from 3 of 3 clients and from A's own probe since 12:00:00",
    methods: ["xhr", "jsonp", "ws"],
    clients: ["p1", "p2", "p3"],
    evidence: ["3 of 3 clients fail", "A's own probe fails"],
    peak: { affected: 4, reporting: 4, failureShare: 1, latencyMs: null, typicalMs: 1.2 },
    observer: "A",
    ...over,
  });

  it("fires when a down incident opens, with its verdict and summary, and resolves when it closes", async () => {
    const { feed, emit, listeners } = fakeHealthFeed();
    const sink = recordingSink();
    const clock = manualClock(T0);
    const td = new TargetDown({ feed, sink, nowMs: clock.nowMs, link: () => "" });
    emit("opened", incident({ kind: "degraded", id: "d1" }));
    emit("opened", incident());
    emit("updated", incident({ summary: "B down: still" }));
    await td.check();
    emit("closed", incident({ end: T0 + 20_000 }));
    await new Promise((r) => setImmediate(r));
    expect(sink.calls.map((c) => [c.type, c.labels.target, c.atMs])).toEqual([
      ["fire", "B", T0],
      ["resolve", "B", T0 + 20_000],
    ]);
    expect(sink.calls[0]!.annotations).toMatchObject({
      verdict: "server",
      summary: "B down: failing from 3 of 3 clients and from A's own probe since 12:00:00",
      incident: "i1",
    });
    td.stop();
    expect(listeners.size).toBe(0);
  });

  it("after a restart, a TargetDown left firing resolves once the feed says the target is up", async () => {
    const { feed, states } = fakeHealthFeed();
    const sink = recordingSink();
    const clock = manualClock(T0);
    await sink.fire({ labels: { alertname: "TargetDown", target: "B", severity: "critical" }, annotations: {} });
    const td = new TargetDown({ feed, sink, nowMs: clock.nowMs, link: () => "" });
    td.adopt([
      {
        alert: {
          labels: { alertname: "TargetDown", target: "B" },
          annotations: {},
          startsAtMs: T0 - 1,
          endsAtMs: null,
          generatorUrl: "",
        },
      },
    ]);
    states.push({ target: "B", state: "up", sinceMs: T0 });
    await td.check();
    expect(sink.calls).toHaveLength(1); // within the grace: the feed may still reopen it
    clock.advance(61_000);
    await td.check();
    expect(sink.calls.map((c) => c.type)).toEqual(["fire", "resolve"]);
  });
});

describe("TailRegression from the change source", () => {
  const change = (over: Partial<ChangeView> = {}): ChangeView => ({
    method: "xhr",
    target: "B",
    client: null,
    t: T0,
    statistic: "p90",
    before: 41,
    after: 160,
    ratio: 3.9,
    verdict: "http",
    evidence: "ping B unchanged, server time unchanged: HTTP or the browser",
    id: `xhr@B/all/${over.t ?? T0}`,
    earliestT: (over.t ?? T0) - 300_000,
    p: 1e-6,
    beforeFrom: (over.t ?? T0) - 7_200_000,
    afterTo: (over.t ?? T0) + 1_800_000,
    samplesBefore: 7200,
    samplesAfter: 1800,
    resolutionMs: 300_000,
    moves: [],
    parts: [],
    ...over,
  });

  it("one alert per change in the last hours, with its verdict; resolved once older than that", async () => {
    const clock = manualClock(T0 + 60_000);
    const sink = recordingSink();
    const list = [change(), change({ t: T0 + 30_000, statistic: "p50" })];
    const tr = new TailRegression({
      source: { changes: async (from, to) => list.filter((c) => c.t >= from && c.t <= to) },
      withinMs: 6 * 3_600_000,
      sink,
      nowMs: clock.nowMs,
      link: () => "",
    });
    await tr.check();
    await tr.check();
    expect(sink.calls.map((c) => [c.type, c.labels.statistic])).toEqual([
      ["fire", "p90"],
      ["fire", "p50"],
    ]);
    expect(sink.calls[0]!.annotations).toMatchObject({ verdict: "http" });
    expect(sink.calls[0]!.labels.changed_at).toBe(new Date(T0).toISOString());
    clock.set(T0 + 6 * 3_600_000 + 1);
    await tr.check();
    expect(sink.calls.map((c) => [c.type, c.labels.statistic])).toEqual([
      ["fire", "p90"],
      ["fire", "p50"],
      ["resolve", "p90"],
    ]);
  });
});

// The bucket width the helpers fold samples into is the rollups' own.
it("synthetic buckets are the rollups' 5 minutes", () => expect(BUCKET_MS).toBe(300_000));
