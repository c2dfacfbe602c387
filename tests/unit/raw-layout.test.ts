// The packed layout (server/store/sqlite/raw-layout.ts): every logical row
// written through packRaw reads back the same, column for column, through the
// SQL that the samples view is made of and through the JavaScript decoder
// the query reader uses: each folded column at its edges (no reason, reason
// ids past the outcome bits, flags 0, typical and not, races with missing
// parts, negative and 40-bit µs, sched without late_us and late_us without
// sched), on generated rows of every kind of sample; and a row it could not
// read back as written is refused, not altered.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { logicalRawSelectSql } from "../../server/store/sqlite/migrations/v6-rows.js";
import {
  edgeRowOf,
  PACKED_RAW_COLUMNS,
  PACKED_STRESS_INDEX,
  packRaw,
  packSample,
  TYPICAL_FLAGS,
  UnpackableRowError,
  unpackStress,
} from "../../server/store/sqlite/raw-layout.js";
import { DDL } from "../../server/store/sqlite/schema.js";
import { RAW_SAMPLES_V6_DDL } from "../../server/store/sqlite/migrations/v6-rows.js";
import { blockStore } from "../../server/store/sqlite/block-writer.js";
import { INSERT_RAW } from "../../server/store/sqlite/migrations/v6-rows.js";
import { RAW_COLUMNS } from "../../server/store/logical-row.js";
import { mulberry32 } from "../../shared/prng.js";
import { openSqlitePageReader } from "../../server/store/sqlite/page-reader.js";
import { pageReaderOver } from "../../server/store/postgres/page-reader.js";
import type { RawSampleRow } from "../../server/store/page-reader.js";
import type { SampleFilter } from "../../server/store/sample-filter.js";

const NAMES = RAW_COLUMNS.split(",").map((c) => c.trim());
const SERIES = { xhr: 1, best2: 2, tcprtt: 3, ping: 4 } as const;
const METHOD_OF = new Map(Object.entries(SERIES).map(([method, id]) => [id as number, method]));
const pack = (r: Row) => packRaw(r, METHOD_OF.get(r[3]!)!);
type Row = (number | null)[];

function database(): Database.Database {
  const db = new Database(":memory:");
  // Version 6's row table beside version 7's blocks: the packed row is both one's row and the other's sample.
  db.exec(DDL + RAW_SAMPLES_V6_DDL);
  db.exec(
    "INSERT INTO series (id, method, target) VALUES (1, 'xhr', 'A'), (2, 'best2', 'A+B'), (3, 'tcprtt', 'A'), (4, 'ping', 'A')",
  );
  db.exec(
    "INSERT INTO reasons (id, text) VALUES (1, 'network'), (2, 'http-503'), (300, 'a reason past the first hundreds')",
  );
  db.exec("INSERT INTO clients (id, client_key) VALUES (1, 'k1'), (2, 'k2')");
  db.exec(
    "INSERT INTO sessions (id, session_key, client_id, client, first_seen_ms) VALUES (1, 's1', 'c1', 1, 0), (2, 's2', 'c2', 2, 0)",
  );
  return db;
}

// session, seq, t, series, outcome, us, sched_ms, late_us, hidden_us, flags, reason, winner, other_us, other_outcome, minrtt_us, lag_us, server_us
const EDGES: Row[] = [
  [1, 0, 1_790_000_000_000, SERIES.xhr, 0, 1200, 0, 450, 0, TYPICAL_FLAGS, null, null, null, null, null, 120, 250],
  [1, 1, 1_790_000_000_001, SERIES.xhr, 2, null, 3, 3999, 17, 0x0303, 300, null, null, null, null, null, null],
  [1, 2, 1_790_000_000_002, SERIES.xhr, 3, null, 12, null, null, 0x1f0b, 2, null, null, null, null, null, null],
  [
    1,
    3,
    1_790_000_000_003,
    SERIES.xhr,
    1,
    30_000_000,
    null,
    2_000_001,
    9_000_000_000,
    0x0100,
    null,
    null,
    null,
    null,
    null,
    0,
    0,
  ],
  [1, 4, 1_790_000_000_004, SERIES.best2, 0, 550, -2, 0, 0, TYPICAL_FLAGS, null, 1, 20_000, 0, null, null, null],
  [1, 5, 1_790_000_000_005, SERIES.best2, 0, 550, 0, 0, 0, TYPICAL_FLAGS, null, 0, null, 2, null, null, null],
  [1, 6, 1_790_000_000_006, SERIES.best2, 1, 5_000_000, 0, 0, 0, TYPICAL_FLAGS, null, null, null, 1, null, null, null],
  [1, 7, 1_790_000_000_007, SERIES.best2, 0, 900, 0, 0, 0, TYPICAL_FLAGS, null, 1, -7, 0, null, null, null],
  [
    1,
    8,
    1_790_000_000_008,
    SERIES.best2,
    0,
    900,
    0,
    0,
    0,
    TYPICAL_FLAGS,
    null,
    0,
    3_600_000_000_000,
    3,
    null,
    null,
    null,
  ],
  [1, 9, 1_790_000_000_009, SERIES.best2, 0, 900, 0, 0, 0, 0, null, null, null, null, null, null, null],
  [1, 10, 1_790_000_000_010, SERIES.tcprtt, 0, 230, null, null, null, 0, null, null, null, null, 180, null, null],
  [1, 11, 1_790_000_000_011, SERIES.tcprtt, 0, 230, null, null, null, 0, null, null, null, null, null, null, null],
  [1, 12, 1_790_000_000_012, SERIES.ping, 1, 5_000_000, null, null, null, 0, 1, null, null, null, null, null, null],
];

function generated(n: number): Row[] {
  const rand = mulberry32(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const maybe = (v: number) => (rand() < 0.3 ? null : v);
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const series = pick(Object.values(SERIES));
    const outcome = Math.floor(rand() * 4);
    const probe = series === SERIES.xhr || series === SERIES.best2;
    const flags = probe
      ? pick([TYPICAL_FLAGS, 0x1f0b, 0x1703, 0xffff, Math.floor(rand() * 0x2000)])
      : pick([0, 0, 0x0303]);
    const race = series === SERIES.best2;
    rows.push([
      2,
      i,
      1_790_000_100_000 + i,
      series,
      outcome,
      outcome >= 2 ? null : Math.floor(rand() * 2 ** (1 + rand() * 34)),
      probe ? maybe(Math.floor(rand() * 50) - 5) : null,
      probe ? maybe(Math.floor(rand() * 2 ** (rand() * 32))) : null,
      probe ? maybe(rand() < 0.8 ? 0 : Math.floor(rand() * 1e9)) : null,
      flags,
      outcome === 2 ? maybe(pick([1, 2, 300])) : null,
      race ? maybe(Math.floor(rand() * 2)) : null,
      race ? maybe(Math.floor(rand() * 2 ** (rand() * 40))) : null,
      race ? maybe(Math.floor(rand() * 4)) : null,
      series === SERIES.tcprtt ? maybe(Math.floor(rand() * 1e6)) : null,
      probe ? maybe(Math.floor(rand() * 5000)) : null,
      probe ? maybe(Math.floor(rand() * 5000)) : null,
    ]);
  }
  return rows;
}

const asObject = (r: Row) => Object.fromEntries(NAMES.map((name, i) => [name, r[i]]));

function roundTrip(rows: Row[]): void {
  const db = database();
  const insert = db.prepare(INSERT_RAW);
  db.transaction(() => rows.forEach((r) => insert.run(pack(r))))();
  const back = db.prepare(`${logicalRawSelectSql()} ORDER BY r.t, r.session, r.seq`).all();
  expect(back).toEqual(rows.map(asObject));
  // The query reader's decoder (edgeRowOf), on the stored rows.
  const stored = db
    .prepare(`SELECT ${PACKED_RAW_COLUMNS} FROM raw_samples ORDER BY t, session, seq`)
    .raw(true)
    .all() as Row[];
  expect(stored.map((r) => edgeRowOf(METHOD_OF.get(r[3]!)!, r))).toEqual(
    rows.map((r) => ({
      t: r[2],
      series: r[3],
      outcome: r[4],
      us: r[5],
      flags: r[9],
      lateUs: r[7],
      winner: r[11],
      otherUs: r[12],
      minrttUs: r[14],
      load: null,
    })),
  );
  db.close();
}

describe("raw_samples' packed layout", () => {
  it("reads back every column of the edge rows, in SQL and in JavaScript", () => roundTrip(EDGES));
  it("reads back every column of 20,000 generated rows", () => roundTrip(generated(20_000)));

  it("stores a visible page's probe and an ok baseline without a byte for their outcome, flags, schedule or race", () => {
    const probe = pack(EDGES[0]!);
    expect(probe).toHaveLength(12);
    // SQLite stores the integers 0 and 1 in the record header alone.
    expect([probe[4], probe[6], probe[9]]).toEqual([0, 0, null]);
    expect(pack(EDGES[11]!)[4]).toBe(0);
  });

  it("folds a stress test's run and phase into one block value, and reads them back", () => {
    const loaded = [...EDGES[0]!, 41, 3];
    const row = packSample(loaded, "xhr");
    expect(row.slice(0, PACKED_STRESS_INDEX)).toEqual(pack(EDGES[0]!));
    expect(row[PACKED_STRESS_INDEX]).toBe(41 * 8 + 3);
    expect(unpackStress(row[PACKED_STRESS_INDEX])).toEqual({ run: 41, load: 3 });
    expect(edgeRowOf("xhr", row).load).toBe(3);
    // Outside a test: NULL, which a block stores without a byte.
    expect(packSample(EDGES[0]!, "xhr")[PACKED_STRESS_INDEX]).toBeNull();
    expect(unpackStress(null)).toEqual({ run: null, load: null });
    expect(() => packSample([...EDGES[0]!, 1, 8], "xhr")).toThrow(UnpackableRowError);
  });

  it("refuses a row it could not read back as written", () => {
    const withRace = [...EDGES[10]!];
    withRace[11] = 0; // a tcprtt sample with a winner beside its min RTT
    const cases: Row[] = [
      withRace,
      EDGES[0]!.map((v, i) => (i === 9 ? 0x10000 : v)),
      EDGES[0]!.map((v, i) => (i === 4 ? 4 : v)),
      EDGES[0]!.map((v, i) => (i === 7 ? 1.5 : v)),
    ];
    for (const r of cases) expect(() => pack(r), JSON.stringify(r)).toThrow(UnpackableRowError);
  });

  it("reads pages from the blocks exactly as the samples view reads the same rows, under every filter", async () => {
    const db = database();
    const insert = db.prepare(INSERT_RAW);
    // Session 2's generated rows interleaved in time with session 1's edges.
    const rows = [...EDGES, ...generated(3000).map((r) => r.map((v, i) => (i === 2 ? v! - 100_000 + (r[1]! % 7) : v)))];
    db.transaction(() => rows.forEach((r) => insert.run(pack(r))))();
    // The same rows as blocks, a session's in batches of 100 as a writer would store them.
    const storeBlocks = blockStore(db);
    db.transaction(() => {
      for (const session of [1, 2]) {
        const mine = rows.filter((r) => r[0] === session).map((r) => ({ row: pack(r), extra: null }));
        for (let i = 0; i < mine.length; i += 100) storeBlocks(session, null, mine.slice(i, i + 100));
      }
    })();
    const viewReader = pageReaderOver(
      (sql, params) =>
        db
          .prepare(sql)
          .raw(true)
          .all(...params) as RawSampleRow[],
      () => {},
      // Version 6's view has no stress test: its rows read as outside one.
      "NULL, NULL",
    );
    const packedReader = openSqlitePageReader(db);
    const all = async (reader: typeof viewReader, f: SampleFilter) => {
      const out: RawSampleRow[] = [];
      for await (const page of reader.pages(f, 257)) out.push(...page);
      return out;
    };
    const whole = { fromMs: 0, toMs: 2_000_000_000_000 };
    const filters: SampleFilter[] = [
      whole,
      { ...whole, visibleOnly: true },
      { ...whole, reportInFlight: true },
      { ...whole, reportInFlight: false },
      { ...whole, maxLateMs: 3 },
      { ...whole, methods: ["best2", "tcpminrtt"] },
      { ...whole, targets: ["A+B"] },
      { ...whole, clientId: "c2" },
      {
        fromMs: 1_790_000_000_500,
        toMs: 1_790_000_001_999,
        exclude: [{ fromMs: 1_790_000_001_000, toMs: 1_790_000_001_499 }],
      },
    ];
    for (const f of filters) {
      const expected = await all(viewReader, f);
      expect(expected.length, JSON.stringify(f)).toBeGreaterThan(0);
      expect(await all(packedReader, f), JSON.stringify(f)).toEqual(expected);
    }
    expect((await all(packedReader, whole)).length).toBe(rows.length);
    db.close();
  });

  it("gives the samples view version 1's columns and values", () => {
    const db = database();
    const insert = db.prepare(INSERT_RAW);
    for (const r of EDGES) insert.run(pack(r));
    const view = db.prepare("SELECT * FROM samples ORDER BY t").all() as Record<string, unknown>[];
    expect(Object.keys(view[0]!)).toEqual([
      "session",
      "seq",
      "t",
      "method",
      "target",
      "ms",
      "outcome",
      "scheduled_t",
      "late_ms",
      "hidden_ms",
      "flags",
      "reason",
      "winner",
      "other_ms",
      "other_outcome",
      "minrtt",
      "server_lag_ms",
      "server_ms",
    ]);
    expect(view[1]).toMatchObject({
      outcome: "error",
      reason: "a reason past the first hundreds",
      scheduled_t: 1_790_000_000_001 - 3,
      late_ms: 3.999,
      flags: 0x0303,
    });
    expect(view[4]).toMatchObject({
      method: "best2",
      winner: "jsonp",
      other_ms: 20,
      other_outcome: "ok",
      scheduled_t: 1_790_000_000_004 + 2,
    });
    expect(view[6]).toMatchObject({ winner: null, other_ms: null, other_outcome: "timeout" });
    expect(view[10]).toMatchObject({ method: "tcprtt", minrtt: 0.18, winner: null, other_ms: null });
    expect(view[12]).toMatchObject({ method: "ping", outcome: "timeout", reason: "network", flags: 0 });
    db.close();
  });
});
