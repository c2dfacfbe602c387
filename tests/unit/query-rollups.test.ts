// The rollup path of every query endpoint (server/query/) against the exact
// raw path on the same database (which tests/unit/chart-queries.test.ts
// checks against brute force): counts, failures, skipped, min and max equal;
// percentiles within ±1 %; over ranges whose edges cut minutes, hours and
// days, so whole rollups and raw edges are both merged.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openQueries, type Queries } from "../../server/query/queries.js";
import { openReadPool } from "../../server/store/sqlite/read-pool.js";
import type { ReadPool } from "../../server/store/read-pool.js";
import { openStore } from "../../server/store/sqlite/store.js";
import type { SampleFilter } from "../../server/store/sample-filter.js";
import type { Store } from "../../server/store/store.js";
import type { Sample } from "../../shared/contract/index.js";
import { ROLLUP_RELATIVE_ERROR } from "../../shared/rollup.js";
import { STRESS_PHASES } from "../../shared/stress/phases.js";
import { tempDir } from "../../testkit/server-process.js";
import { mulberry32 } from "../../shared/prng.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 9, 1) + 7 * 60_000 + 1234; // not aligned to any level
const SPAN = 3 * DAY + 5 * 3_600_000;
const SERIES: [Sample["method"], string][] = [
  ["xhr", "A"],
  ["jsonp", "B"],
  ["ws", "A"],
  ["best2", "A+B"],
  ["ping", "A"],
  ["tcprtt", "A"],
  ["ws", "B"],
  ["jsonp", "A"],
];

let dir: string;
let store: Store;
let pool: ReadPool;
let rollups: Queries;
let raw: Queries;

beforeAll(async () => {
  dir = tempDir();
  const dbPath = path.join(dir, "q.db");
  store = openStore(dbPath);
  pool = openReadPool(dbPath, sqliteDb(store));
  rollups = openQueries({ readPool: pool, rawKeptFromMs: () => 0 }, "rollups");
  raw = openQueries({ readPool: pool, rawKeptFromMs: () => 0 }, "raw");
  const rand = mulberry32(4242);
  for (const [k, clientId] of ["client_a", "client_b", "client_c"].entries()) {
    const samples: Sample[] = [];
    for (let seq = 0; seq < 8000; seq++) {
      const [method, target] = SERIES[Math.floor(rand() * SERIES.length)]!;
      const t = T0 + Math.floor(rand() * SPAN);
      const r = rand();
      const probe = method !== "ping" && method !== "tcprtt";
      let s: Sample;
      if (r < 0.01) s = { seq, t, method, target, ms: null, outcome: "error", reason: "network" };
      else if (r < 0.03) s = { seq, t, method, target, ms: 5000, outcome: "timeout" };
      else if (r < 0.035) s = { seq, t, method, target, ms: null, outcome: "skipped" };
      else {
        let ms = (method === "ping" ? 0.2 : 3) * Math.exp(2 * (rand() - 0.5));
        if (rand() < 0.01) ms = 100 + rand() * 900;
        if (rand() < 0.01) ms = 0;
        s = { seq, t, method, target, ms: Math.round(ms * 1000) / 1000, outcome: "ok" };
        if (method === "best2") {
          s.winner = rand() < 0.5 ? "ws" : "jsonp";
          s.otherMs = Math.round((ms + rand() * 20) * 1000) / 1000;
          s.otherOutcome = "ok";
        }
      }
      if (method === "tcprtt") s.minrtt = (Math.round(rand() * 100) + 10) / 1000;
      if (probe) {
        s.lateMs = Math.floor(rand() * 120);
        s.visibleAtSend = rand() < 0.8;
        s.visibleAtReply = rand() < 0.9;
      }
      // A stress test now and then (docs/stress.md): its samples carry run and phase.
      if (rand() < 0.1) {
        s.stressRun = `run_${k}_${Math.floor(t / 3_600_000)}`;
        s.load = STRESS_PHASES[Math.floor(rand() * STRESS_PHASES.length)]!;
      }
      samples.push(s);
    }
    for (let i = 0; i < samples.length; i += 1000)
      await store.insertBatch(
        { clientId, sessionId: `session_${k}`, samples: samples.slice(i, i + 1000) },
        { userAgent: null, receivedAtMs: T0 },
      );
  }
});

afterAll(() => {
  pool.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const all: SampleFilter = { fromMs: T0 - 1, toMs: T0 + SPAN };
const FILTERS: [string, SampleFilter][] = [
  ["everything", all],
  ["from the beginning of time", { fromMs: 0, toMs: T0 + SPAN }],
  ["odd edges", { fromMs: T0 + 17 * 3_600_000 + 12_345, toMs: T0 + 2 * DAY + 3 * 60_000 + 999 }],
  ["one client", { ...all, clientId: "client_b" }],
  ["methods and targets", { ...all, methods: ["xhr", "ws", "tcpminrtt"], targets: ["A"] }],
  ["visible only, late ≤ 50 ms", { ...all, visibleOnly: true, maxLateMs: 50 }],
  ["a day left out", { ...all, exclude: [{ fromMs: T0 + DAY + 1000, toMs: T0 + 2 * DAY + 5000 }] }],
  ["timeouts in the tail", { ...all, timeoutsInTail: true }],
  ["outside stress tests (load=none)", { ...all, loads: [0] }],
  ["every stress-test phase", { ...all, loads: [1, 2, 3, 4, 5] }],
];

const near = (got: number | null, exact: number | null) => {
  if (exact === null || exact === 0) return expect(got).toBe(exact);
  expect(Math.abs(got! - exact) / exact).toBeLessThanOrEqual(ROLLUP_RELATIVE_ERROR);
};
const key = (s: { method: string; target: string }) => `${s.method}/${s.target}`;

describe.each(FILTERS)("rollups vs raw: %s", (_name, f) => {
  it("stats: counts, min, max exact; mean exact to the µs; percentiles within ±1 %", async () => {
    const [a, b] = [await rollups.stats(f), await raw.stats(f)];
    expect(a.map(key)).toEqual(b.map(key));
    expect(b.length).toBeGreaterThan(0);
    a.forEach((r, i) => {
      const e = b[i]!;
      expect([r.count, r.failures, r.skipped, r.min, r.max]).toEqual([e.count, e.failures, e.skipped, e.min, e.max]);
      if (e.mean !== null) expect(Math.abs(r.mean! - e.mean)).toBeLessThan(1e-6);
      for (const p of ["p10", "p50", "p90", "p99", "p999"] as const) near(r[p], e[p]);
    });
  });

  it("histogram: counts and failures exact, bins within the edge-straddling share", async () => {
    const [a, b] = [await rollups.histogram(f, { binsPerDecade: 20 }), await raw.histogram(f, { binsPerDecade: 20 })];
    expect(a.series.map(key)).toEqual(b.series.map(key));
    a.series.forEach((s, i) => {
      const e = b.series[i]!;
      expect([s.count, s.failures]).toEqual([e.count, e.failures]);
      expect(s.counts.reduce((x, y) => x + y, 0)).toBe(e.count);
      // Bins align by their lower edge; a sample can only move to a neighbouring bin.
      const byEdge = (h: typeof a, counts: number[]) => new Map(counts.map((c, j) => [h.edges[j]!.toPrecision(9), c]));
      const ea = byEdge(a, s.counts);
      const eb = byEdge(b, e.counts);
      let moved = 0;
      for (const k of new Set([...ea.keys(), ...eb.keys()])) moved += Math.abs((ea.get(k) ?? 0) - (eb.get(k) ?? 0));
      expect(moved).toBeLessThanOrEqual(Math.max(2, 0.06 * e.count));
    });
  });

  it("cdf: counts exact, F ascending to 1, markers within ±1 %", async () => {
    const [a, b] = [await rollups.cdf(f), await raw.cdf(f)];
    expect(a.series.map(key)).toEqual(b.series.map(key));
    a.series.forEach((s, i) => {
      const e = b.series[i]!;
      expect(s.count).toBe(e.count);
      if (s.count === 0) return;
      for (let j = 1; j < s.points.length; j++) {
        expect(s.points[j]![0]).toBeGreaterThan(s.points[j - 1]![0]);
        expect(s.points[j]![1]).toBeGreaterThan(s.points[j - 1]![1]);
      }
      expect(s.points.at(-1)).toEqual([e.points.at(-1)![0], 1]);
      expect(s.markers!.map((m) => m.p)).toEqual(e.markers!.map((m) => m.p));
      s.markers!.forEach((m, j) => near(m.ms, e.markers![j]!.ms));
    });
  });

  it("timeseries: same axis; counts, failures, max exact; percentiles within ±1 %", async () => {
    const [a, b] = [
      await rollups.timeseries(f, { bucketMs: 3_600_000 }),
      await raw.timeseries(f, { bucketMs: 3_600_000 }),
    ];
    expect([a.from, a.bucketMs, a.t]).toEqual([b.from, b.bucketMs, b.t]);
    expect(a.series.map(key)).toEqual(b.series.map(key));
    a.series.forEach((s, i) => {
      const e = b.series[i]!;
      expect(s.count).toEqual(e.count);
      expect(s.failures).toEqual(e.failures);
      expect(s.max).toEqual(e.max);
      s.p99.forEach((v, j) => near(v, e.p99[j]!));
      s.p50.forEach((v, j) => near(v, e.p50[j]!));
    });
  });

  it("heatmap: same axis, each time bucket's total exact", async () => {
    const [a, b] = [
      await rollups.heatmap(f, { bucketMs: 6 * 3_600_000 }),
      await raw.heatmap(f, { bucketMs: 6 * 3_600_000 }),
    ];
    expect([a.from, a.t]).toEqual([b.from, b.t]);
    expect(b.series.length).toBeGreaterThan(0);
    expect(a.series.map(key)).toEqual(b.series.map(key));
    a.series.forEach((s, i) => {
      const sum = (rows: number[][]) => rows.map((r) => r.reduce((x, y) => x + y, 0));
      expect(sum(s.counts)).toEqual(sum(b.series[i]!.counts));
    });
  });

  it("races: availability and race counts exact, percentiles within ±1 %", async () => {
    const [a, b] = [await rollups.races(f), await raw.races(f)];
    expect(a.availability).toEqual(b.availability);
    expect(a.best2.map((r) => [r.target, r.count, r.failures, r.wins])).toEqual(
      b.best2.map((r) => [r.target, r.count, r.failures, r.wins]),
    );
    a.best2.forEach((r, i) => {
      const e = b.best2[i]!;
      near(r.p50, e.p50);
      near(r.p99, e.p99);
      near(r.margin.p50, e.margin.p50);
      r.single.forEach((s, j) => {
        expect(s.count).toBe(e.single[j]!.count);
        near(s.p99, e.single[j]!.p99);
      });
    });
  });
});
