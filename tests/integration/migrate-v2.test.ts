// A database written by version 2 of the schema (tests/fixtures/schema-v2.sql:
// raw samples keyed by (session, seq) with a t index) opens in the current version, raw
// samples keyed by time in the packed layout (raw-layout.ts): every row is still there with every column, each
// session knows its first and last sample's t, the timed rollups are
// untouched and summed into running totals (version 4), the old table and
// index are gone, and the upgrade printed its progress.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { ENGINE_STEP_LINE } from "../../server/store/sqlite/migrations/v7-to-v8-session-engine.js";
import { afterAll, describe, expect, it } from "vitest";
import { logicalRawSelectSql } from "../../server/store/sqlite/migrations/v6-rows.js";
import { withQueries } from "../../server/query/with-queries.js";
import { openStore } from "../../server/store/sqlite/store.js";
import { encodeRollup, encodeRollupLegacy, record, type Rollup } from "../../shared/rollup.js";
import { prng } from "../../testkit/prng.js";
import { tempDir } from "../../testkit/server-process.js";
import { SCHEMA_VERSION } from "../../server/store/sqlite/schema.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const V2_DDL = fs.readFileSync(path.resolve("tests/fixtures/schema-v2.sql"), "utf8");
const T0 = 1_760_000_000_000;
/** More than one of the migration's pages (50,000 rows). */
const N = 60_500;
const DAY_MS = 86_400_000;
const DAY1_BEST2 = [700, 800, 95_000];
const DAY2_BEST2 = [650, 1_200];
const dir = tempDir();

/** The stored form of the rollup of `us` (shared/rollup.ts). */
function rollupOf(us: readonly number[]): Rollup {
  const r: Rollup = { count: 0, min: null, max: null, sum: 0, zero: 0, buckets: new Map() };
  for (const v of us) record(r, v);
  return r;
}
/** A rollup as a version 2 file holds it (the form versions 2-5 wrote). */
const legacyBlob = (us: readonly number[]) => Buffer.from(encodeRollupLegacy(rollupOf(us)));
/** A rollup as the upgrade writes it. */
const blob = (us: readonly number[]) => Buffer.from(encodeRollup(rollupOf(us)));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const RAW_COLUMNS = [
  "session",
  "seq",
  "t",
  "series",
  "outcome",
  "us",
  "sched_ms",
  "late_us",
  "hidden_us",
  "flags",
  "reason",
  "winner",
  "other_us",
  "other_outcome",
  "minrtt_us",
  "lag_us",
  "server_us",
] as const;
type RawRow = Record<(typeof RAW_COLUMNS)[number], number | null>;

function writeV2(dbPath: string): { raw: RawRow[]; rollups: unknown[] } {
  const db = new Database(dbPath);
  db.pragma("journal_mode = WAL");
  db.exec(V2_DDL);
  db.exec(`INSERT INTO meta (key, value) VALUES ('schema_version', '2');
    INSERT INTO clients (id, client_key) VALUES (1, 'client_a'), (2, 'client_b');
    INSERT INTO sessions (id, session_key, client_id, client, label, user_agent, first_seen_ms, timer_resolution_us) VALUES
      (1, 'sess_a', 'client_a', 1, 'laptop', 'UA', ${T0}, 5),
      (2, 'sess_b', 'client_b', 2, NULL, NULL, ${T0}, NULL),
      (3, 'sess_quiet', 'client_b', 2, NULL, NULL, ${T0}, NULL);
    INSERT INTO series (id, method, target) VALUES (1, 'xhr', 'A'), (2, 'ws', 'B'), (3, 'best2', 'A+B');
    INSERT INTO reasons (id, text) VALUES (1, 'http-503');
`);
  const day = T0 - (T0 % DAY_MS);
  const addRollup = db.prepare(
    "INSERT INTO rollups (level, start_ms, series, client, class, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  addRollup.run(0, T0, 1, 1, 0, 2, 1, legacyBlob([300, 900]), null, 0, 0, null);
  // Client 2's best of two on two days, client 1's XHR on one: the totals sum the days. The
  // aggregate rows of the first day are there; the second day's was pruned by a retention
  // pass that stopped before the client's row: the aggregate totals follow the clients' rows.
  addRollup.run(3, day, 3, 2, 0, 0, 0, legacyBlob(DAY1_BEST2), legacyBlob([5000]), 7, 9, legacyBlob([40, 120]));
  addRollup.run(3, day + DAY_MS, 3, 2, 0, 1, 2, legacyBlob(DAY2_BEST2), null, 3, 1, legacyBlob([60]));
  addRollup.run(3, day, 3, 0, 255, 0, 0, legacyBlob(DAY1_BEST2), legacyBlob([5000]), 7, 9, legacyBlob([40, 120]));
  addRollup.run(3, day, 1, 1, 0, 2, 1, legacyBlob([300, 900]), null, 0, 0, null);
  addRollup.run(3, day, 1, 0, 255, 2, 1, legacyBlob([300, 900]), null, 0, 0, null);
  const rand = prng(2024);
  const raw: RawRow[] = [];
  const seqs = [0, 0];
  for (let i = 0; i < N; i++) {
    const session = 1 + (i % 2);
    const outcome = rand() < 0.05 ? 2 : 0;
    // t is not in seq order within a session (a probe's t is when it was sent, its seq when it was recorded).
    raw.push({
      session,
      seq: seqs[session - 1]!++,
      t: T0 + i * 50 + Math.floor(rand() * 400),
      series: 1 + (i % 3),
      outcome,
      us: outcome === 0 ? 300 + Math.floor(rand() * 40_000) : null,
      sched_ms: i % 3 === 2 ? null : Math.floor(rand() * 4),
      late_us: Math.floor(rand() * 9000),
      hidden_us: 0,
      flags: 0x0f03,
      reason: outcome === 2 ? 1 : null,
      winner: i % 3 === 2 ? i % 2 : null,
      other_us: i % 3 === 2 ? 900 : null,
      other_outcome: i % 3 === 2 ? 0 : null,
      minrtt_us: null,
      lag_us: 120,
      server_us: 250,
    });
  }
  const insert = db.prepare(
    `INSERT INTO raw_samples (${RAW_COLUMNS.join(", ")}) VALUES (${RAW_COLUMNS.map((c) => `@${c}`).join(", ")})`,
  );
  db.transaction(() => raw.forEach((r) => insert.run(r)))();
  const rollups = db.prepare("SELECT * FROM rollups ORDER BY level, client, class, start_ms, series").all();
  db.close();
  return { raw, rollups };
}

describe("a version 2 database", () => {
  const dbPath = path.join(dir, "v2.db");
  const written = writeV2(dbPath);
  const lines: string[] = [];
  const store = withQueries(openStore(dbPath, { log: (l) => lines.push(l) }));
  afterAll(() => store.close());

  it("is upgraded to the current version with progress lines, and the file compacted", () => {
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(SCHEMA_VERSION),
    });
    expect(lines).toEqual([
      `upgrading database schema 2 → 3: ${N} samples`,
      `upgrading database schema 2 → 3: 50000 / ${N} samples (82 %)`,
      `upgrading database schema 2 → 3: ${N} / ${N} samples (100 %)`,
      "upgraded database schema 2 → 3",
      "upgrading database schema 3 → 4: running totals from 3 day rollups",
      "upgraded database schema 3 → 4",
      `upgrading database schema 6 → 7: ${N} samples into blocks`,
      `upgrading database schema 6 → 7: 50000 / ${N} samples (82 %)`,
      `upgrading database schema 6 → 7: ${N} / ${N} samples (100 %)`,
      "upgraded database schema 6 → 7",
      ENGINE_STEP_LINE,
      expect.stringMatching(/^compacting the database file after the upgrade: \d+ MB, of which \d+ MB free$/),
      expect.stringMatching(/^compacted the database file: \d+ MB$/),
    ]);
    // The old table's pages were given back: what is left free is a rounding error.
    const free = store.db.pragma("freelist_count", { simple: true }) as number;
    expect(free).toBeLessThan(0.02 * (store.db.pragma("page_count", { simple: true }) as number));
  });

  it("keeps every raw row with every column", () => {
    // Decoded from the blocks into version 6's table (testkit/sample-table.ts), read as logical rows.
    const back = loadSampleTables(store.db).prepare(`${logicalRawSelectSql()} ORDER BY r.session, r.seq`).all();
    const want = [...written.raw].sort((a, b) => a.session! - b.session! || a.seq! - b.seq!);
    expect(back).toEqual(want);
  });

  it("keeps raw samples in blocks keyed by time, with no second index and no old table left", () => {
    const objects = store.db
      .prepare("SELECT type, name FROM sqlite_master WHERE tbl_name LIKE 'raw_%' ORDER BY name")
      .all();
    expect(objects).toEqual([{ type: "table", name: "raw_blocks" }]);
    const pk = (store.db.prepare("PRAGMA table_info(raw_blocks)").all() as { name: string; pk: number }[])
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    expect(pk).toEqual(["start_ms", "session", "seq0"]);
  });

  it("gives each session the t of its oldest and newest sample", () => {
    const spans = store.db.prepare("SELECT id, first_t, last_t FROM sessions ORDER BY id").all();
    const span = (session: number) => {
      const ts = written.raw.filter((r) => r.session === session).map((r) => r.t!);
      return { first_t: Math.min(...ts), last_t: Math.max(...ts) };
    };
    expect(spans).toEqual([
      { id: 1, ...span(1) },
      { id: 2, ...span(2) },
      { id: 3, first_t: null, last_t: null },
    ]);
  });

  it("leaves the timed rollups as they were", () => {
    expect(
      store.db.prepare("SELECT * FROM rollups WHERE level < 4 ORDER BY level, client, class, start_ms, series").all(),
    ).toEqual(written.rollups);
  });

  it("sums each client's day rollups into running totals, and the aggregate totals from those", () => {
    const totals = store.db.prepare("SELECT * FROM rollups WHERE level = 4 ORDER BY client, class, series").all();
    const xhr = { failures: 2, skipped: 1, lat: blob([300, 900]), tmo: null, wins_ws: 0, wins_jsonp: 0, margin: null };
    const best2 = {
      failures: 1,
      skipped: 2,
      lat: blob([...DAY1_BEST2, ...DAY2_BEST2]),
      tmo: blob([5000]),
      wins_ws: 10,
      wins_jsonp: 10,
      margin: blob([40, 120, 60]),
    };
    expect(totals).toEqual([
      { level: 4, start_ms: 0, series: 1, client: 0, class: 255, ...xhr },
      { level: 4, start_ms: 0, series: 3, client: 0, class: 255, ...best2 },
      { level: 4, start_ms: 0, series: 1, client: 1, class: 0, ...xhr },
      { level: 4, start_ms: 0, series: 3, client: 2, class: 0, ...best2 },
    ]);
  });

  it("reads samples through the view and answers clients as before", async () => {
    const n = (
      loadSampleTables(store.db)
        .prepare("SELECT count(*) AS n FROM samples WHERE method = 'xhr' AND target = 'A'")
        .get() as { n: number }
    ).n;
    expect(n).toBe(written.raw.filter((r) => r.series === 1).length);
    const clients = await store.clients();
    const lastOf = (session: number) => Math.max(...written.raw.filter((r) => r.session === session).map((r) => r.t!));
    expect(clients.map((c) => [c.clientId, c.lastSeen, c.sessions]).sort()).toEqual([
      ["client_a", lastOf(1), 1],
      ["client_b", lastOf(2), 2],
    ]);
  });

  it("opens again without upgrading twice", async () => {
    await store.close();
    const again: string[] = [];
    const s2 = openStore(dbPath, { log: (l) => again.push(l) });
    expect(again).toEqual([]);
    expect((s2.db.prepare("SELECT sum(n) AS n FROM raw_blocks").get() as { n: number }).n).toBe(N);
    await s2.close();
  });
});
