// rowMatcher (server/store/sqlite/row-matcher.ts) keeps the rows sampleWhere's SQL
// keeps: the same stored samples, decoded from their blocks into version 6's
// table (testkit/sample-table.ts) with the stress test's columns beside it,
// read once through SQL with sampleWhere and once as packed rows filtered in
// JavaScript, under generated filters.
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/sqlite/store.js";
import { batchWriter } from "../../server/store/sqlite/writer.js";
import { Codes } from "../../server/store/sqlite/codes.js";
import { decodeBlock } from "../../server/store/sqlite/raw-block.js";
import { PACKED_STRESS_INDEX, unpackStress } from "../../server/store/sqlite/raw-layout.js";
import { rowMatcher } from "../../server/store/sqlite/row-matcher.js";
import { sampleWhere, type SampleFilter } from "../../server/store/sample-filter.js";
import type { Sample } from "../../shared/contract/index.js";
import { STRESS_PHASES } from "../../shared/stress/phases.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";
import { loadSampleTables } from "../../testkit/sample-table.js";
import { mulberry32 } from "../../shared/prng.js";
import { tempDir } from "../../testkit/server-process.js";

const T0 = Date.UTC(2026, 10, 26, 11, 58);
const SPAN_MS = 10 * 60_000;
const store = openStore(path.join(tempDir(), "rows.db"));
afterAll(() => store.close());
const db = sqliteDb(store);

/** Samples of every kind the filters tell apart: methods, targets, visibility, report in flight, lateness, baselines, stress-test phases. */
function samples(rand: () => number, n: number): Sample[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  return Array.from({ length: n }, (_, seq): Sample => {
    const s = sample(rand, pick, seq);
    return rand() < 0.4 ? { ...s, stressRun: pick(["run_rows_1", "run_rows_2"]), load: pick(STRESS_PHASES) } : s;
  });
}

function sample(rand: () => number, pick: <T>(xs: readonly T[]) => T, seq: number): Sample {
  const t = T0 + Math.floor(rand() * SPAN_MS);
  const r = rand();
  if (r < 0.15)
    return {
      seq,
      t,
      method: pick(["ping", "wsping"] as const),
      target: pick(["A", "B"]),
      ms: Math.round(rand() * 3000) / 1000,
      outcome: "ok",
    };
  if (r < 0.2)
    return {
      seq,
      t,
      method: "xhr",
      target: pick(["A", "B"]),
      ms: null,
      outcome: "error",
      reason: "network",
      lateMs: rand() * 5,
    };
  return {
    seq,
    t,
    scheduledT: t - 1,
    method: pick(["xhr", "jsonp", "ws"] as const),
    target: pick(["A", "B"]),
    ms: Math.round(rand() * 40_000) / 1000,
    outcome: "ok",
    // Whole ms half the time: a limit the page offers meets a lateness exactly.
    lateMs: rand() < 0.5 ? Math.round(rand() * 120) : Math.round(rand() * 120_000) / 1000,
    visibleAtSend: rand() < 0.8,
    visibleAtReply: rand() < 0.9,
    reportInFlight: rand() < 0.3,
  };
}

const write = batchWriter(db, new Codes(db));
const rand = mulberry32(26);
write(
  ["client_rows_a", "client_rows_b"].map((clientId, k) => ({
    batch: { clientId, sessionId: `session_rows_${k}`, samples: samples(rand, 600) },
    meta: { userAgent: null, receivedAtMs: T0 },
  })),
);

loadSampleTables(db);
const series = new Map(
  (db.prepare("SELECT id, method, target FROM series").all() as { id: number; method: string; target: string }[]).map(
    (s) => [s.id, s],
  ),
);
const clients = new Map(
  (db.prepare("SELECT id, client_id FROM sessions").all() as { id: number; client_id: string }[]).map((s) => [
    s.id,
    s.client_id,
  ]),
);
// The packed rows as the blocks hold them (the stress test's value too), and its two columns
// beside version 6's table, for sampleWhere's SQL to read.
const packedRows = (
  db.prepare("SELECT start_ms, session, seq0, data FROM main.raw_blocks").all() as {
    start_ms: number;
    session: number;
    seq0: number;
    data: Uint8Array;
  }[]
).flatMap((b) => decodeBlock({ startMs: b.start_ms, session: b.session, seq0: b.seq0 }, b.data));
db.exec("CREATE TEMP TABLE stress_cols (session INTEGER, seq INTEGER, t INTEGER, stress_run INTEGER, load INTEGER)");
const addStress = db.prepare("INSERT INTO temp.stress_cols VALUES (?, ?, ?, ?, ?)");
for (const r of packedRows) {
  const { run, load } = unpackStress(r[PACKED_STRESS_INDEX]);
  addStress.run(r[0], r[1], r[2], run, load);
}
db.exec(
  "CREATE TEMP VIEW samples_stress AS SELECT samples.*, c.stress_run, c.load FROM temp.samples JOIN temp.stress_cols c USING (session, seq, t)",
);
const runCodes = new Map(
  (db.prepare("SELECT id, run_key FROM stress_runs").all() as { id: number; run_key: string }[]).map((r) => [
    r.run_key,
    r.id,
  ]),
);
const key = (session: number, seq: number) => `${session}:${seq}`;

const filterArb: fc.Arbitrary<SampleFilter> = fc.record(
  {
    fromMs: fc.integer({ min: T0 - 1000, max: T0 + SPAN_MS }).map((t) => t + 0.5),
    toMs: fc.integer({ min: T0, max: T0 + SPAN_MS + 1000 }),
    clientId: fc.constantFrom("client_rows_a", "client_rows_b", "client_nobody"),
    methods: fc.subarray(["xhr", "jsonp", "ws", "ping", "wsping", "tcpminrtt"]),
    targets: fc.subarray(["A", "B", "C"]),
    visibleOnly: fc.boolean(),
    maxLateMs: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.double({ min: 0, max: 120, noNaN: true })),
    exclude: fc.array(
      fc.record({
        fromMs: fc.integer({ min: T0, max: T0 + SPAN_MS }),
        toMs: fc.integer({ min: T0, max: T0 + SPAN_MS }),
      }),
      { maxLength: 2 },
    ),
    reportInFlight: fc.boolean(),
    loads: fc.subarray([0, 1, 2, 3, 4, 5]),
    stressRun: fc.constantFrom("run_rows_1", "run_rows_2", "run_nobody"),
  },
  { requiredKeys: ["fromMs", "toMs"] },
);

describe("rowMatcher", () => {
  it("keeps exactly the rows sampleWhere keeps", () => {
    expect(packedRows.length).toBe(1200);
    fc.assert(
      fc.property(filterArb, (f) => {
        const where = sampleWhere(f);
        const bySql = (
          db
            .prepare(`SELECT samples.session, samples.seq FROM samples_stress AS samples WHERE ${where.sql}`)
            .raw(true)
            .all(...where.params) as number[][]
        )
          .map(([s, q]) => key(s!, q!))
          .sort();
        const match = rowMatcher(f, {
          seriesOf: (id) => series.get(id),
          clientIdOf: (s) => clients.get(s),
          stressRunCode: f.stressRun === undefined ? undefined : (runCodes.get(f.stressRun) ?? null),
        });
        const byJs = packedRows
          .filter(match)
          .map((r) => key(r[0]!, r[1]!))
          .sort();
        expect(byJs).toEqual(bySql);
      }),
      { numRuns: 300 },
    );
  });

  it("is not vacuous: the generated filters keep some rows and drop others", () => {
    const all = rowMatcher(
      { fromMs: T0 - 1, toMs: T0 + SPAN_MS },
      { seriesOf: (id) => series.get(id), clientIdOf: (s) => clients.get(s) },
    );
    expect(packedRows.filter(all)).toHaveLength(1200);
    const visible = rowMatcher(
      { fromMs: T0 - 1, toMs: T0 + SPAN_MS, visibleOnly: true },
      { seriesOf: (id) => series.get(id), clientIdOf: (s) => clients.get(s) },
    );
    const kept = packedRows.filter(visible).length;
    expect(kept).toBeGreaterThan(300);
    expect(kept).toBeLessThan(1100);
    const ctx = { seriesOf: (id: number) => series.get(id), clientIdOf: (s: number) => clients.get(s) };
    const outside = packedRows.filter(rowMatcher({ fromMs: T0 - 1, toMs: T0 + SPAN_MS, loads: [0] }, ctx)).length;
    const download = packedRows.filter(rowMatcher({ fromMs: T0 - 1, toMs: T0 + SPAN_MS, loads: [2] }, ctx)).length;
    expect(outside).toBeGreaterThan(600);
    expect(outside).toBeLessThan(800);
    expect(download).toBeGreaterThan(50);
    expect(download).toBeLessThan(150);
  });
});
