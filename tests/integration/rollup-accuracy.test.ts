// The rollup path's promise (docs/api.md: counts exact, percentiles within
// ±1 % of the exact nearest rank), on both stores: /api/stats' figures
// forced from rollups (with raw samples at a range's edges) against brute
// force over the samples written, for ranges whose edges cut minutes,
// hours and days. tests/unit/query-rollups.test.ts compares SQLite's two
// paths with each other; this holds PostgreSQL's to the exact figures too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStoreFor } from "../../server/store/open.js";
import { withQueries, type StoreWithQueries } from "../../server/query/with-queries.js";
import type { SampleFilter } from "../../server/store/sample-filter.js";
import type { Store } from "../../server/store/store.js";
import type { Sample } from "../../shared/contract/index.js";
import { ROLLUP_RELATIVE_ERROR } from "../../shared/rollup.js";
import { mulberry32 } from "../../shared/prng.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

const DAY = 86_400_000;
const NOW = Date.now();
/** Three days and five hours, not aligned to any rollup level, ending an hour ago. */
const T0 = NOW - 3 * DAY - 6 * 3_600_000 + 7 * 60_000 + 1234;
const SPAN = 3 * DAY + 5 * 3_600_000;
const SERIES: [Sample["method"], string][] = [
  ["xhr", "A"],
  ["jsonp", "B"],
  ["ws", "A"],
  ["best2", "A+B"],
  ["ping", "A"],
  ["tcprtt", "A"],
];
const CLIENTS = ["client_acc_a", "client_acc_b", "client_acc_c"];

/** Every sample written, with its client. */
const written: (Sample & { clientId: string })[] = [];

function generate(): void {
  const rand = mulberry32(777);
  for (const clientId of CLIENTS) {
    for (let seq = 0; seq < 8000; seq++) {
      const [method, target] = SERIES[Math.floor(rand() * SERIES.length)]!;
      const t = T0 + Math.floor(rand() * SPAN);
      const r = rand();
      let s: Sample;
      if (r < 0.02) s = { seq, t, method, target, ms: 5000, outcome: "timeout" };
      else {
        // A body near 3 ms (0.2 for ping), a tail to a second, and some zeros.
        let ms = (method === "ping" ? 0.2 : 3) * Math.exp(2 * (rand() - 0.5));
        if (rand() < 0.02) ms = 100 + rand() * 900;
        if (rand() < 0.01) ms = 0;
        s = { seq, t, method, target, ms: Math.round(ms * 1000) / 1000, outcome: "ok" };
        if (method === "best2") Object.assign(s, { winner: "ws", otherMs: null, otherOutcome: "timeout" });
        if (method === "tcprtt") s.minrtt = (Math.round(rand() * 100) + 10) / 1000;
      }
      written.push({ ...s, clientId });
    }
  }
}

/** Nearest rank: the value at rank ceil(p·n) of the sorted latencies. */
const nearestRank = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil(p * sorted.length - 1e-9)) - 1]!;

/** The exact figures of each series over `f`: ok latencies only (timeouts are failures), tcpminrtt from tcprtt's minrtt. */
function bruteForce(f: SampleFilter): Map<string, { count: number; failures: number; sorted: number[] }> {
  const out = new Map<string, { count: number; failures: number; sorted: number[] }>();
  const add = (key: string, ms: number | null) => {
    const e = out.get(key) ?? { count: 0, failures: 0, sorted: [] };
    if (ms === null) e.failures++;
    else {
      e.count++;
      e.sorted.push(ms);
    }
    out.set(key, e);
  };
  for (const s of written) {
    if (s.t < f.fromMs || s.t > f.toMs) continue;
    if (f.clientId !== undefined && s.clientId !== f.clientId) continue;
    if (f.targets !== undefined && !f.targets.includes(s.target)) continue;
    if (f.methods === undefined || f.methods.includes(s.method))
      add(`${s.method}/${s.target}`, s.outcome === "ok" ? s.ms : null);
    if (s.minrtt !== undefined && (f.methods === undefined || f.methods.includes("tcpminrtt")))
      add(`tcpminrtt/${s.target}`, s.minrtt);
  }
  for (const e of out.values()) e.sorted.sort((a, b) => a - b);
  return out;
}

const all: SampleFilter = { fromMs: T0 - 1, toMs: T0 + SPAN };
const FILTERS: [string, SampleFilter][] = [
  ["everything", all],
  ["odd edges", { fromMs: T0 + 17 * 3_600_000 + 12_345, toMs: T0 + 2 * DAY + 3 * 60_000 + 999 }],
  ["a few minutes inside one hour", { fromMs: T0 + DAY + 61_000, toMs: T0 + DAY + 9 * 60_000 + 5 }],
  ["one client", { ...all, clientId: "client_acc_b" }],
  ["methods and targets", { ...all, methods: ["xhr", "ws", "tcpminrtt"], targets: ["A"] }],
];

describe.each(STORE_KINDS)("rollup percentiles against brute force, %s store", (kind) => {
  let store: StoreWithQueries<Store>;
  beforeAll(async () => {
    if (written.length === 0) generate();
    store = withQueries(await openStoreFor(await freshDb(kind, "rollup_accuracy")), { answerFrom: "rollups" });
    for (const clientId of CLIENTS) {
      const mine = written.filter((s) => s.clientId === clientId).map(({ clientId: _c, ...s }) => s);
      for (let i = 0; i < mine.length; i += 1000)
        await store.insertBatch(
          { clientId, sessionId: `${clientId}_session`, samples: mine.slice(i, i + 1000) },
          { userAgent: null, receivedAtMs: NOW },
        );
    }
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it.each(FILTERS)("%s: counts and failures exact, min and max exact, p50 to p99.9 within ±1 %", async (_name, f) => {
    const exact = bruteForce(f);
    const rows = await store.stats(f);
    expect(rows.map((r) => `${r.method}/${r.target}`).sort()).toEqual([...exact.keys()].sort());
    let checked = 0;
    for (const r of rows) {
      const e = exact.get(`${r.method}/${r.target}`)!;
      expect([r.count, r.failures], `${r.method}/${r.target}`).toEqual([e.count, e.failures]);
      if (e.count === 0) continue;
      expect([r.min, r.max]).toEqual([e.sorted[0], e.sorted.at(-1)]);
      for (const [name, p] of [
        ["p50", 0.5],
        ["p90", 0.9],
        ["p99", 0.99],
        ["p999", 0.999],
      ] as const) {
        const want = nearestRank(e.sorted, p);
        const got = r[name]!;
        if (want === 0) expect(got, `${r.method}/${r.target} ${name}`).toBe(0);
        else
          expect(
            Math.abs(got - want) / want,
            `${r.method}/${r.target} ${name}: ${got} for ${want}`,
          ).toBeLessThanOrEqual(ROLLUP_RELATIVE_ERROR);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(4);
  });
});
