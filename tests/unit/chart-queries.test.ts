// Every chart query against a brute-force computation over the same random
// samples (seeded), through the public Store API on a temporary database:
// planted tails, a spike in time, a bimodal series, each filter, empty ranges.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/sqlite/store.js";
import { QueryAbortedError } from "../../server/store/errors.js";
import { QueryTooLargeError } from "../../server/query/too-large.js";
import type { SampleFilter } from "../../server/store/sample-filter.js";
import { type StoreWithQueries, withQueries } from "../../server/query/with-queries.js";
import {
  binEdge,
  CDF_MARKER_PERCENTILES,
  MAX_HEATMAP_CELLS,
  MAX_TIME_BUCKETS,
  type Sample,
} from "../../shared/contract/index.js";
import { tempDir } from "../../testkit/server-process.js";
import { mulberry32 } from "../../shared/prng.js";

// ---- data -------------------------------------------------------------------

const T0 = 1_700_000_000_000; // a whole hour
const SPAN = 2 * 3_600_000;
const SPIKE = { fromMs: T0 + 60 * 60_000, toMs: T0 + 62 * 60_000 };

interface Ref {
  t: number;
  clientId: string;
  method: string;
  target: string;
  ms: number | null;
  outcome: string;
  minrtt?: number;
  lateMs?: number;
  visibleAtSend?: boolean;
  visibleAtReply?: boolean;
}

const SERIES: [Sample["method"], string][] = [
  ["xhr", "A"],
  ["jsonp", "A"],
  ["ws", "A"],
  ["xhr", "B"],
  ["best2", "A+B"],
  ["ping", "A"],
  ["tcprtt", "A"],
];
const SESSIONS = [
  { clientId: "client_one", sessionId: "session_one_a", label: "laptop" },
  { clientId: "client_one", sessionId: "session_one_b", label: "laptop" },
  { clientId: "client_two", sessionId: "session_two_a" },
  { clientId: "client_three", sessionId: "session_three_a" },
];

function makeSamples(
  n: number,
  rand: () => number,
): { sessionId: string; clientId: string; label?: string; sample: Sample }[] {
  const out: { sessionId: string; clientId: string; label?: string; sample: Sample }[] = [];
  const seqs = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const sess = SESSIONS[Math.floor(rand() * SESSIONS.length)]!;
    const [method, target] = SERIES[Math.floor(rand() * SERIES.length)]!;
    const seq = seqs.get(sess.sessionId) ?? 0;
    seqs.set(sess.sessionId, seq + 1);
    const t = T0 + Math.floor(rand() * SPAN);
    const baseline = method === "ping" || method === "tcprtt";
    const r = rand();
    let sample: Sample;
    if (r < 0.01) sample = { seq, t, method, target, ms: null, outcome: "error", reason: "network" };
    else if (r < 0.02) sample = { seq, t, method, target, ms: 5000, outcome: "timeout" };
    else if (r < 0.025) sample = { seq, t, method, target, ms: null, outcome: "skipped" };
    else {
      let ms = (method === "ping" ? 0.2 : 2) * Math.exp(rand() - 0.5);
      if (method === "ws" && rand() < 0.35) ms *= 12; // bimodal
      if (rand() < 0.006) ms = 100 + rand() * 900; // planted tail
      if (t >= SPIKE.fromMs && t <= SPIKE.toMs && target === "A" && !baseline) ms += 300 + rand() * 200; // spike
      if (rand() < 0.02) ms = Math.round(ms); // repeated values
      sample = { seq, t, method, target, ms: Math.round(ms * 1000) / 1000, outcome: "ok" };
    }
    // Stored to the µs, as every latency is (0.09 + 0.01 would be 0.09999999999999999 on the wire and 0.1 stored).
    if (method === "tcprtt" && rand() < 0.9) sample.minrtt = (Math.round(rand() * 100) + 10) / 1000;
    if (!baseline) {
      if (rand() < 0.9) sample.lateMs = Math.floor(rand() * 60);
      if (rand() < 0.9) sample.visibleAtSend = rand() < 0.8;
      if (rand() < 0.9) sample.visibleAtReply = rand() < 0.8;
    }
    out.push({
      sessionId: sess.sessionId,
      clientId: sess.clientId,
      ...(sess.label ? { label: sess.label } : {}),
      sample,
    });
  }
  return out;
}

// ---- brute-force reference ---------------------------------------------------

function matches(f: SampleFilter, s: Ref): boolean {
  if (s.t < f.fromMs || s.t > f.toMs) return false;
  if (f.clientId !== undefined && s.clientId !== f.clientId) return false;
  if (f.methods?.length && !f.methods.includes(s.method) && !(s.method === "tcprtt" && f.methods.includes("tcpminrtt")))
    return false;
  if (f.targets?.length && !f.targets.includes(s.target)) return false;
  if (f.visibleOnly && (s.visibleAtSend === false || s.visibleAtReply === false)) return false;
  if (f.maxLateMs !== undefined && s.lateMs !== undefined && s.lateMs > f.maxLateMs) return false;
  return !(f.exclude ?? []).some((w) => s.t >= w.fromMs && s.t <= w.toMs);
}

interface RefSeries {
  method: string;
  target: string;
  /** The latency distribution: ok samples, and timeouts at their value when the filter says so. */
  ok: { t: number; ms: number }[];
  failures: { t: number }[];
  skipped: number;
}

/** Filtered samples grouped per series, tcprtt's minrtt as its own series. */
function reference(all: Ref[], f: SampleFilter): Map<string, RefSeries> {
  const m = new Map<string, RefSeries>();
  const g = (method: string, target: string) => {
    const k = `${method}/${target}`;
    if (!m.has(k)) m.set(k, { method, target, ok: [], failures: [], skipped: 0 });
    return m.get(k)!;
  };
  const named = (m: string) => !f.methods?.length || f.methods.includes(m);
  for (const s of all.filter((x) => matches(f, x))) {
    if (named(s.method)) {
      const s1 = g(s.method, s.target);
      if (s.outcome === "ok" || (f.timeoutsInTail === true && s.outcome === "timeout"))
        s1.ok.push({ t: s.t, ms: s.ms! });
      if (s.outcome === "skipped") s1.skipped++;
      else if (s.outcome !== "ok") s1.failures.push({ t: s.t });
    }
    if (s.minrtt !== undefined && (named("tcprtt") || named("tcpminrtt")))
      g("tcpminrtt", s.target).ok.push({ t: s.t, ms: s.minrtt });
  }
  return m;
}

/** For each distinct value of an ascending list: how many values are ≤ it (one linear pass). */
function atOrBelow(sorted: number[]): Map<number, number> {
  const m = new Map<number, number>();
  sorted.forEach((v, i) => m.set(v, i + 1));
  return m;
}

/** Smallest value with at least p% of the values at or below it. */
function bruteRank(values: number[], p: number): number | null {
  const sorted = [...values].sort((a, b) => a - b);
  const below = atOrBelow(sorted);
  for (const v of sorted) if (below.get(v)! * 100 >= p * sorted.length - 1e-6) return v;
  return null;
}

/**
 * Index of the bin of `ms` by linear search over the edges: [edges[i], edges[i+1]).
 * Latencies under 1 µs (a loopback ping rounded to 0) count in the bin starting at 1 µs.
 */
function binOf(edges: number[], raw: number): number {
  const ms = Math.max(raw, 0.001);
  for (let i = 0; i + 1 < edges.length; i++) if (ms >= edges[i]! && ms < edges[i + 1]!) return i;
  return -1;
}

const keyOf = (s: { method: string; target: string }) => `${s.method}/${s.target}`;

// ---- fixture --------------------------------------------------------------------

let store: StoreWithQueries;
let dir: string;
const all: Ref[] = [];
const everything: SampleFilter = { fromMs: T0 - 1, toMs: T0 + SPAN };

beforeAll(async () => {
  dir = tempDir();
  store = withQueries(openStore(path.join(dir, "charts.db")));
  const rand = mulberry32(20261123);
  const made = makeSamples(12_000, rand);
  const bySession = new Map<string, typeof made>();
  for (const m of made) {
    if (!bySession.has(m.sessionId)) bySession.set(m.sessionId, []);
    bySession.get(m.sessionId)!.push(m);
  }
  for (const [sessionId, list] of bySession) {
    for (let i = 0; i < list.length; i += 1000) {
      const chunk = list.slice(i, i + 1000);
      const first = chunk[0]!;
      await store.insertBatch(
        {
          clientId: first.clientId,
          sessionId,
          ...(first.label ? { label: first.label } : {}),
          samples: chunk.map((c) => c.sample),
        },
        {
          userAgent: `Mozilla/5.0 (X11; Linux x86_64) Firefox/${120 + i}.0 ${sessionId}`,
          receivedAtMs: T0 + SPAN + 1000,
        },
      );
    }
  }
  for (const m of made) {
    const s = m.sample;
    all.push({
      t: s.t,
      clientId: m.clientId,
      method: s.method,
      target: s.target,
      ms: s.ms,
      outcome: s.outcome,
      ...(s.minrtt !== undefined ? { minrtt: s.minrtt } : {}),
      ...(s.lateMs !== undefined ? { lateMs: s.lateMs } : {}),
      ...(s.visibleAtSend !== undefined ? { visibleAtSend: s.visibleAtSend } : {}),
      ...(s.visibleAtReply !== undefined ? { visibleAtReply: s.visibleAtReply } : {}),
    });
  }
});

afterAll(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const FILTERS: [string, SampleFilter][] = [
  ["everything", everything],
  ["one client", { ...everything, clientId: "client_one" }],
  ["methods", { ...everything, methods: ["xhr", "ws", "tcprtt"] }],
  ["target", { ...everything, targets: ["B", "A+B"] }],
  ["min RTT alone", { ...everything, methods: ["tcpminrtt"] }],
  ["min RTT and ping", { ...everything, methods: ["tcpminrtt", "ping"] }],
  ["visible only", { ...everything, visibleOnly: true }],
  ["maxLateMs", { ...everything, maxLateMs: 10 }],
  ["spike excluded", { ...everything, exclude: [SPIKE] }],
  ["two windows excluded", { ...everything, exclude: [SPIKE, { fromMs: T0, toMs: T0 + 600_000 }] }],
  ["the spike only", { ...everything, fromMs: SPIKE.fromMs, toMs: SPIKE.toMs }],
  ["timeouts in the tail", { ...everything, timeoutsInTail: true }],
  [
    "timeouts in the tail, one client, spike excluded",
    { ...everything, clientId: "client_two", timeoutsInTail: true, exclude: [SPIKE] },
  ],
  [
    "all at once",
    {
      ...everything,
      clientId: "client_one",
      methods: ["xhr", "jsonp"],
      targets: ["A"],
      visibleOnly: true,
      maxLateMs: 30,
      exclude: [SPIKE],
    },
  ],
];

// ---- tests ------------------------------------------------------------------------

describe("the fixture", () => {
  it("has the planted shapes the tests rely on", () => {
    const ref = reference(all, everything);
    const ws = ref.get("ws/A")!.ok.map((x) => x.ms);
    expect(ws.filter((x) => x > 10).length / ws.length).toBeGreaterThan(0.25); // second mode
    expect(ref.get("tcpminrtt/A")!.ok.length).toBeGreaterThan(100);
    expect(all.some((s) => s.visibleAtSend === false)).toBe(true);
    expect(all.some((s) => s.lateMs !== undefined && s.lateMs > 10)).toBe(true);
  });
});

describe.each(FILTERS)("filter: %s", (_name, filter) => {
  const ref = () => reference(all, filter);

  it("stats matches the brute force", async () => {
    const rows = await store.stats(filter);
    const r = ref();
    expect(rows.map(keyOf).sort()).toEqual([...r.keys()].sort());
    for (const row of rows) {
      const s = r.get(keyOf(row))!;
      const v = s.ok.map((x) => x.ms);
      expect(row.count).toBe(v.length);
      expect(row.failures).toBe(s.failures.length);
      expect(row.skipped).toBe(s.skipped);
      expect(row.min).toBe(v.length ? Math.min(...v) : null);
      expect(row.p10).toBe(bruteRank(v, 10));
      expect(row.p50).toBe(bruteRank(v, 50));
      expect(row.p90).toBe(bruteRank(v, 90));
      expect(row.p99).toBe(bruteRank(v, 99));
      expect(row.p999).toBe(bruteRank(v, 99.9));
      expect(row.max).toBe(v.length ? Math.max(...v) : null);
      if (v.length === 0) expect(row.mean).toBeNull();
      else expect(row.mean).toBeCloseTo(v.reduce((a, b) => a + b, 0) / v.length, 9);
    }
  });

  it("histogram: every ok sample in the bin the edges say", async () => {
    const h = await store.histogram(filter, { binsPerDecade: 10 });
    const r = ref();
    expect(h.from).toBe(filter.fromMs);
    expect(h.to).toBe(filter.toMs);
    expect(h.series.map(keyOf).sort()).toEqual([...r.keys()].sort());
    for (let i = 1; i < h.edges.length; i++) expect(h.edges[i]! / h.edges[i - 1]!).toBeCloseTo(10 ** 0.1, 9);
    for (const s of h.series) {
      const want = new Array<number>(Math.max(0, h.edges.length - 1)).fill(0);
      const rs = r.get(keyOf(s))!;
      const outside = rs.ok.filter(({ ms }) => binOf(h.edges, ms) < 0);
      expect(outside, `samples outside the edges in ${s.method}/${s.target}`).toEqual([]);
      for (const { ms } of rs.ok) want[binOf(h.edges, ms)]!++;
      expect(s.counts).toEqual(want);
      expect(s.count).toBe(rs.ok.length);
      expect(s.failures).toBe(rs.failures.length);
    }
  });

  it("cdf: exact F at every point, the whole tail, the percentile markers", async () => {
    const c = await store.cdf(filter);
    const r = ref();
    expect(c.series.map(keyOf).sort()).toEqual([...r.keys()].sort());
    for (const s of c.series) {
      const v = r
        .get(keyOf(s))!
        .ok.map((x) => x.ms)
        .sort((a, b) => a - b);
      expect(s.count).toBe(v.length);
      if (v.length === 0) {
        expect(s.points).toEqual([]);
        continue;
      }
      const below = atOrBelow(v);
      // One comparison of whole arrays: thousands of single expects are slow.
      expect(s.points.map(([ms]) => [ms, below.get(ms)! / v.length])).toEqual(s.points);
      expect(s.points.every(([ms], i) => i === 0 || ms > s.points[i - 1]![0])).toBe(true);
      expect(s.points[0]![0]).toBe(v[0]);
      expect(s.points.at(-1)).toEqual([v.at(-1), 1]);
      const xs = new Set(s.points.map((p) => p[0]));
      expect(v.slice(-1000).filter((x) => !xs.has(x))).toEqual([]);
      expect(s.markers?.map((m) => m.p)).toEqual([...CDF_MARKER_PERCENTILES]);
      for (const m of s.markers!) expect(m.ms).toBe(bruteRank(v, m.p));
    }
  });

  it("timeseries: per-bucket percentiles, counts and failures", async () => {
    const bucketMs = 300_000;
    const ts = await store.timeseries(filter, { bucketMs });
    const r = ref();
    expect(ts.bucketMs).toBe(bucketMs);
    expect(ts.t[0]).toBe(Math.floor(filter.fromMs / bucketMs) * bucketMs);
    expect(ts.t.at(-1)).toBe(Math.floor(filter.toMs / bucketMs) * bucketMs);
    for (let i = 1; i < ts.t.length; i++) expect(ts.t[i]! - ts.t[i - 1]!).toBe(bucketMs);
    expect(ts.series.map(keyOf).sort()).toEqual([...r.keys()].sort());
    for (const s of ts.series) {
      const rs = r.get(keyOf(s))!;
      for (const arr of [s.count, s.failures, s.p50, s.p90, s.p99, s.max]) expect(arr).toHaveLength(ts.t.length);
      const inBucket = ts.t.map((start) =>
        rs.ok.filter((x) => x.t >= start && x.t < start + bucketMs).map((x) => x.ms),
      );
      expect(s.count).toEqual(inBucket.map((v) => v.length));
      expect(s.failures).toEqual(
        ts.t.map((start) => rs.failures.filter((x) => x.t >= start && x.t < start + bucketMs).length),
      );
      expect(s.p50).toEqual(inBucket.map((v) => bruteRank(v, 50)));
      expect(s.p90).toEqual(inBucket.map((v) => bruteRank(v, 90)));
      expect(s.p99).toEqual(inBucket.map((v) => bruteRank(v, 99)));
      expect(s.max).toEqual(inBucket.map((v) => (v.length ? Math.max(...v) : null)));
    }
  });

  it("heatmap: counts per time bucket and latency bin", async () => {
    const bucketMs = 600_000;
    const hm = await store.heatmap(filter, { bucketMs, binsPerDecade: 5 });
    const r = ref();
    expect(hm.binsPerDecade).toBe(5);
    expect(hm.series.map(keyOf).sort()).toEqual([...r.keys()].sort());
    for (const s of hm.series) {
      const want = hm.t.map(() => new Array<number>(Math.max(0, hm.edges.length - 1)).fill(0));
      for (const { t, ms } of r.get(keyOf(s))!.ok) {
        const i = hm.t.findIndex((start) => t >= start && t < start + bucketMs);
        const j = binOf(hm.edges, ms);
        if (i < 0 || j < 0) throw new Error(`sample ${t}/${ms} falls outside the heatmap`);
        want[i]![j]!++;
      }
      expect(s.counts).toEqual(want);
    }
  });
});

describe("what the charts show", () => {
  it("timeouts in the tail: 2 % timeouts at 5 s make p99 the timeout, and failures do not change", async () => {
    const xhrA = { ...everything, methods: ["xhr"], targets: ["A"] };
    const [okOnly] = await store.stats(xhrA);
    const [withTimeouts] = await store.stats({ ...xhrA, timeoutsInTail: true });
    const timeouts = all.filter((x) => x.method === "xhr" && x.target === "A" && x.outcome === "timeout").length;
    expect(timeouts / (okOnly!.count + okOnly!.failures)).toBeGreaterThan(0.01);
    expect(withTimeouts!.count).toBe(okOnly!.count + timeouts);
    expect(withTimeouts!.failures).toBe(okOnly!.failures);
    expect(okOnly!.p99!).toBeLessThan(5000);
    expect(withTimeouts!.p99).toBe(5000);
    expect(withTimeouts!.max).toBe(5000);
  });

  it("leaving out the spike drops xhr A's p99 and the timeseries shows when it was", async () => {
    const xhrA = { ...everything, methods: ["xhr"], targets: ["A"] };
    const [withSpike] = await store.stats(xhrA);
    const [without] = await store.stats({ ...xhrA, exclude: [SPIKE] });
    expect(withSpike!.p99!).toBeGreaterThan(300);
    expect(without!.p99!).toBeLessThan(withSpike!.p99!);
    const ts = await store.timeseries(xhrA, { bucketMs: 60_000 });
    const s = ts.series[0]!;
    const worst = s.p50.reduce<number>((best, v, i) => ((v ?? 0) > (s.p50[best] ?? 0) ? i : best), 0);
    expect(ts.t[worst]).toBeGreaterThanOrEqual(SPIKE.fromMs - 60_000);
    expect(ts.t[worst]).toBeLessThanOrEqual(SPIKE.toMs);
  });

  it("the bimodal ws series has two separated peaks in its histogram", async () => {
    const h = await store.histogram({ ...everything, methods: ["ws"], targets: ["A"] }, { binsPerDecade: 5 });
    const counts = h.series[0]!.counts;
    const lowPeak = h.edges.findIndex((e, i) => e <= 2 && h.edges[i + 1]! > 2);
    const highPeak = h.edges.findIndex((e, i) => e <= 24 && h.edges[i + 1]! > 24);
    const valley = h.edges.findIndex((e, i) => e <= 7 && h.edges[i + 1]! > 7);
    expect(counts[lowPeak]!).toBeGreaterThan(3 * counts[valley]!);
    expect(counts[highPeak]!).toBeGreaterThan(3 * counts[valley]!);
  });

  it("the CDF spreads the planted tail: points between p99 and p99.9", async () => {
    const c = await store.cdf({ ...everything, methods: ["xhr"], targets: ["A"] });
    const pts = c.series[0]!.points;
    expect(pts.filter(([, F]) => F > 0.99 && F < 0.999).length).toBeGreaterThanOrEqual(5);
    expect(pts.some(([ms]) => ms >= 100)).toBe(true);
  });

  it("timeseries and heatmap default to a bucket chosen from the range, starting at the first sample", async () => {
    const ts = await store.timeseries({ fromMs: 0, toMs: T0 + SPAN }, {});
    const first = Math.min(...all.map((s) => s.t));
    expect(ts.from).toBe(first);
    expect(ts.bucketMs).toBe(30_000); // 2 h / 300 buckets → 30 s
    expect(ts.t[0]).toBe(Math.floor(first / 30_000) * 30_000);
    const hm = await store.heatmap({ fromMs: 0, toMs: T0 + SPAN }, {});
    expect(hm.bucketMs).toBe(30_000);
    expect(hm.binsPerDecade).toBe(20);
    expect(hm.t).toEqual(ts.t);
  });
});

describe("empty ranges", () => {
  const empty: SampleFilter = { fromMs: T0 + SPAN + 10_000, toMs: T0 + SPAN + 20_000 };
  it("give empty results of the right shape", async () => {
    expect(await store.stats(empty)).toEqual([]);
    expect(await store.histogram(empty, {})).toEqual({
      from: empty.fromMs,
      to: empty.toMs,
      binsPerDecade: 20,
      edges: [],
      series: [],
    });
    expect(await store.cdf(empty)).toEqual({ from: empty.fromMs, to: empty.toMs, series: [] });
    const ts = await store.timeseries(empty, { bucketMs: 5000 });
    expect(ts.t).toEqual([T0 + SPAN + 10_000, T0 + SPAN + 15_000, T0 + SPAN + 20_000]);
    expect(ts.series).toEqual([]);
    const hm = await store.heatmap(empty, { bucketMs: 5000 });
    expect(hm.edges).toEqual([]);
    expect(hm.series).toEqual([]);
  });
  it("with from at the beginning of time and no samples, the time axis is empty", async () => {
    const none: SampleFilter = { fromMs: 0, toMs: T0 - 10 };
    expect((await store.timeseries(none, {})).t).toEqual([]);
    expect((await store.heatmap(none, {})).t).toEqual([]);
  });
  it("a series with failures only has a count of 0 and no latencies", async () => {
    // An error whose millisecond no ok sample of its series and client shares.
    const alone = (x: Ref) =>
      reference(all, { fromMs: x.t, toMs: x.t, methods: [x.method], clientId: x.clientId }).get(
        `${x.method}/${x.target}`,
      )!.ok.length === 0;
    const failuresOnly = all.find((x) => x.outcome === "error" && alone(x));
    expect(failuresOnly, "the fixture has an error alone in its millisecond").toBeDefined();
    const f: SampleFilter = {
      fromMs: failuresOnly!.t,
      toMs: failuresOnly!.t,
      methods: [failuresOnly!.method],
      clientId: failuresOnly!.clientId,
    };
    const s = reference(all, f).get(`${failuresOnly!.method}/${failuresOnly!.target}`)!;
    const [row] = (await store.stats(f)).filter((r) => r.target === failuresOnly!.target);
    expect(row).toMatchObject({ count: 0, failures: s.failures.length, p50: null, max: null });
    const h = await store.histogram(f, {});
    const hs = h.series.find((x) => x.method === failuresOnly!.method && x.target === failuresOnly!.target)!;
    expect(hs).toMatchObject({ count: 0, failures: s.failures.length });
    expect(hs.counts.every((c) => c === 0)).toBe(true);
  });
});

describe("caps", () => {
  it(`more than ${MAX_TIME_BUCKETS} time buckets is QUERY_TOO_LARGE`, async () => {
    const f: SampleFilter = { fromMs: T0, toMs: T0 + 2001 * 1000 };
    await expect(store.timeseries(f, { bucketMs: 1000 })).rejects.toBeInstanceOf(QueryTooLargeError);
    await expect(store.heatmap(f, { bucketMs: 1000 })).rejects.toMatchObject({ code: "QUERY_TOO_LARGE" });
    expect((await store.timeseries({ fromMs: T0, toMs: T0 + 1999 * 1000 }, { bucketMs: 1000 })).t).toHaveLength(2000);
  });
  it(`more than ${MAX_HEATMAP_CELLS} heatmap cells per series is QUERY_TOO_LARGE`, async () => {
    // ~2000 buckets × (latencies span > 3 decades × 100 bins) ≫ the cap.
    await expect(
      store.heatmap({ fromMs: T0, toMs: T0 + 1999 * 3000 }, { bucketMs: 3000, binsPerDecade: 100 }),
    ).rejects.toBeInstanceOf(QueryTooLargeError);
  });
});

describe("the store while it queries", () => {
  it("keeps ingesting while a query is in flight, and the query sees one consistent snapshot", async () => {
    const query = store.histogram({ fromMs: 0, toMs: T0 + SPAN * 2 }, {});
    let settled = false;
    void query.then(() => (settled = true));
    let inserted = 0;
    let insertedWhilePending = 0;
    for (let b = 0; b < 10; b++) {
      const r = await store.insertBatch(
        {
          clientId: "client_late",
          sessionId: "session_late",
          samples: Array.from({ length: 50 }, (_, i) => ({
            seq: b * 50 + i,
            t: T0 + SPAN + 5000,
            method: "xhr" as const,
            target: "Z",
            ms: 1,
            outcome: "ok" as const,
          })),
        },
        { userAgent: null, receivedAtMs: T0 + SPAN + 6000 },
      );
      inserted += r.accepted;
      if (!settled) insertedWhilePending += r.accepted;
      await new Promise((res) => setImmediate(res));
    }
    const h = await query;
    expect(inserted).toBe(500);
    // The inserts really ran while the query was still reading (at least the first batches).
    expect(insertedWhilePending).toBeGreaterThan(0);
    // The query reads one snapshot: whole batches (transactions), never part of one.
    const z = h.series.find((s) => s.target === "Z")?.count ?? 0;
    expect(z % 50).toBe(0);
    const others = h.series
      .filter((s) => s.target !== "Z" && s.method !== "tcpminrtt")
      .reduce((n, s) => n + s.count, 0);
    expect(others).toBe(all.filter((s) => s.outcome === "ok").length);
    const after = await store.stats({ fromMs: 0, toMs: T0 + SPAN * 2, targets: ["Z"] });
    expect(after[0]?.count).toBe(500);
  });

  it("stops a query whose signal aborts, and frees its reader for the next", async () => {
    const before = new AbortController();
    before.abort();
    await expect(store.cdf(everything, { signal: before.signal })).rejects.toBeInstanceOf(QueryAbortedError);

    // Abort mid-way, proven from the query's side: a query reads its signal when
    // it takes a reader and at each later slice. This signal aborts on its first
    // read, so a query that stops with QueryAbortedError had started reading rows
    // and stopped at a later slice. Enough rows that every query spans many slices.
    const bigDir = tempDir();
    const big = withQueries(openStore(path.join(bigDir, "abort.db")), { answerFrom: "raw" });
    try {
      const ROWS = 200_000;
      for (let b = 0; b < ROWS / 1000; b++)
        await big.insertBatch(
          {
            clientId: "client_abort",
            sessionId: "session_abort",
            samples: Array.from({ length: 1000 }, (_, i) => ({
              seq: b * 1000 + i,
              t: T0 + b * 1000 + i,
              method: "xhr" as const,
              target: "A",
              ms: 1 + (i % 97),
              outcome: "ok" as const,
            })),
          },
          { userAgent: null, receivedAtMs: T0 },
        );
      const range: SampleFilter = { fromMs: T0, toMs: T0 + ROWS };
      const watched = [0, 1, 2, 3].map(() => {
        const c = new AbortController();
        let reads = 0;
        const signal = new Proxy(c.signal, {
          get(target, prop) {
            if (prop === "aborted") {
              reads++;
              if (reads === 1) {
                const was = target.aborted;
                c.abort();
                return was;
              }
            }
            const v: unknown = Reflect.get(target, prop, target);
            return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        });
        return { signal, reads: () => reads };
      });
      // More queries than readers: two wait for a reader, then stop at their first slice.
      const settled = await Promise.allSettled(
        watched.map((w) => big.heatmap(range, { signal: w.signal, bucketMs: 60_000 })),
      );
      for (const [i, r] of settled.entries()) {
        expect(r.status).toBe("rejected");
        expect(r.status === "rejected" && r.reason).toBeInstanceOf(QueryAbortedError);
        expect(watched[i]!.reads()).toBeGreaterThanOrEqual(2);
      }
      const rows = await big.stats(range);
      expect(rows.find((r) => r.method === "xhr")?.count).toBe(ROWS);
    } finally {
      await big.close();
      fs.rmSync(bigDir, { recursive: true, force: true });
    }
  });

  it("answers concurrent queries", async () => {
    const [stats, cdf, timeseries, statsAgain] = await Promise.all([
      store.stats(everything),
      store.cdf(everything),
      store.timeseries(everything, {}),
      store.stats(everything),
    ]);
    // Each as it answers alone: interleaved slices share no state.
    expect(stats).toEqual(await store.stats(everything));
    expect(statsAgain).toEqual(stats);
    expect(cdf).toEqual(await store.cdf(everything));
    expect(timeseries).toEqual(await store.timeseries(everything, {}));
    expect(stats.length).toBeGreaterThan(0);
  });
});

describe("clients", () => {
  it("lists each client once with its newest label, sessions and user agent parsed", async () => {
    const clients = await store.clients();
    const ids = clients.map((c) => c.clientId).sort();
    expect(ids).toEqual(["client_late", "client_one", "client_three", "client_two"]);
    const one = clients.find((c) => c.clientId === "client_one")!;
    expect(one.sessions).toBe(2);
    expect(one.label).toBe("laptop");
    expect(one.browser).toMatch(/^Firefox \d+$/);
    expect(one.os).toBe("Linux");
    const two = clients.find((c) => c.clientId === "client_two")!;
    expect(two.label).toBeNull();
    const lastT = Math.max(...all.filter((s) => s.clientId === "client_two").map((s) => s.t));
    expect(two.lastSeen).toBeGreaterThanOrEqual(lastT);
    expect(two.firstSeen).toBe(T0 + SPAN + 1000);
    const late = clients.find((c) => c.clientId === "client_late")!;
    expect(late).toMatchObject({ userAgent: null, browser: null, os: null });
  });
});

describe("a store in memory", () => {
  it("answers the same queries on its one connection", async () => {
    const mem = withQueries(openStore(":memory:"));
    try {
      await mem.insertBatch(
        {
          clientId: "client_mem",
          sessionId: "session_mem",
          samples: [1, 2, 3, 4].map((ms, seq) => ({
            seq,
            t: T0 + seq * 1000,
            method: "xhr" as const,
            target: "A",
            ms,
            outcome: "ok" as const,
          })),
        },
        { userAgent: null, receivedAtMs: T0 },
      );
      const [row] = await mem.stats(everything);
      expect(row).toMatchObject({ count: 4, min: 1, p50: 2, max: 4 });
      const h = await mem.histogram(everything, { binsPerDecade: 1 });
      expect(h.edges).toEqual([binEdge(0, 1), binEdge(1, 1)]);
    } finally {
      mem.close();
    }
  });
});
