// A database written by version 4 of the schema (tests/fixtures/schema-v4.sql:
// one column per field of a raw sample) opens in the current version, raw samples in the
// packed layout (server/store/sqlite/raw-layout.ts): the samples view reads every row
// exactly as it did before the upgrade, rollups are untouched, the old table
// is gone and its pages given back, the upgrade printed its progress, and a
// second opening does not upgrade again. A version 3 file (the same tables
// without running totals) goes through both steps; an upgrade stopped by a
// row it cannot pack leaves the file as it was, and completes once the row is
// gone; a file marked 4 whose table is already packed (an upgrade from 2 stopped
// after its copy) is not repacked.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { ENGINE_STEP_LINE } from "../../server/store/sqlite/migrations/v7-to-v8-session-engine.js";
import { afterAll, describe, expect, it } from "vitest";
import { UnpackableRowError } from "../../server/store/sqlite/raw-layout.js";
import { openStore } from "../../server/store/sqlite/store.js";
import { RAW_COLUMNS } from "../../server/store/logical-row.js";
import { prng } from "../../testkit/prng.js";
import { tempDir } from "../../testkit/server-process.js";
import { SCHEMA_VERSION } from "../../server/store/sqlite/schema.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const V4_DDL = fs.readFileSync(path.resolve("tests/fixtures/schema-v4.sql"), "utf8");
const T0 = 1_790_000_000_000;
/** More than one of the upgrade's pages (50,000 rows). */
const N = 60_500;
const dir = tempDir();
const ALL_SAMPLES = "SELECT * FROM samples ORDER BY t, session, seq";

/** A version 4 file (3: the same tables, no running totals): every kind of row (probes, failures with reasons, best2 races, tcprtt with min RTT, pings). */
function writeV4(dbPath: string, version = 4): { samples: unknown[]; rollups: unknown[] } {
  const db = new Database(dbPath);
  db.pragma("journal_mode = WAL");
  db.exec(V4_DDL);
  db.exec(`INSERT INTO meta (key, value) VALUES ('schema_version', '${version}');
    INSERT INTO clients (id, client_key) VALUES (1, 'client_a');
    INSERT INTO sessions (id, session_key, client_id, client, first_seen_ms, first_t, last_t) VALUES (1, 'sess_a', 'client_a', 1, ${T0}, ${T0}, ${T0 + N * 20});
    INSERT INTO series (id, method, target) VALUES (1, 'xhr', 'A'), (2, 'best2', 'A+B'), (3, 'tcprtt', 'A'), (4, 'ping', 'A'), (5, 'ws', 'A');
    INSERT INTO reasons (id, text) VALUES (1, 'network'), (2, 'http-503');
    INSERT INTO rollups (level, start_ms, series, client, class, failures, skipped, lat) VALUES ${version === 4 ? "(4, 0, 1, 0, 255, 3, 1, NULL)" : `(3, ${T0 - (T0 % 86_400_000)}, 1, 1, 0, 3, 1, NULL)`};`);
  const rand = prng(44);
  const insert = db.prepare(
    `INSERT INTO raw_samples (${RAW_COLUMNS}) VALUES (${RAW_COLUMNS.split(",")
      .map(() => "?")
      .join(", ")})`,
  );
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const series = 1 + (i % 5);
      const outcome = rand() < 0.06 ? 2 : rand() < 0.03 ? 1 : 0;
      const probe = series === 1 || series === 2 || series === 5;
      const race = series === 2;
      insert.run(
        1,
        i,
        T0 + i * 20,
        series,
        outcome,
        outcome === 2 ? null : Math.floor(rand() * 90_000),
        probe ? Math.floor(rand() * 3) : null,
        probe ? Math.floor(rand() * 4000) : null,
        probe ? 0 : null,
        probe ? (rand() < 0.9 ? 0x1f03 : 0x1703) : 0,
        outcome === 2 ? 1 + (i % 2) : null,
        race ? i % 2 : null,
        race && outcome === 0 ? Math.floor(rand() * 30_000) : null,
        race ? 0 : null,
        series === 3 ? Math.floor(rand() * 500) : null,
        probe ? 100 + (i % 50) : null,
        probe ? 200 + (i % 70) : null,
      );
    }
  })();
  const samples = db.prepare(ALL_SAMPLES).all();
  const rollups = db.prepare("SELECT * FROM rollups").all();
  db.close();
  return { samples, rollups };
}

describe("a version 4 database", () => {
  const dbPath = path.join(dir, "v4.db");
  const written = writeV4(dbPath);
  const lines: string[] = [];
  const store = openStore(dbPath, { log: (l) => lines.push(l) });
  afterAll(() => store.close());

  it("is upgraded to the current version with progress lines, and the file compacted", () => {
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(SCHEMA_VERSION),
    });
    expect(lines).toEqual([
      `upgrading database schema 4 → 5: ${N} samples`,
      `upgrading database schema 4 → 5: 50000 / ${N} samples (82 %)`,
      `upgrading database schema 4 → 5: ${N} / ${N} samples (100 %)`,
      "upgraded database schema 4 → 5",
      `upgrading database schema 6 → 7: ${N} samples into blocks`,
      `upgrading database schema 6 → 7: 50000 / ${N} samples (82 %)`,
      `upgrading database schema 6 → 7: ${N} / ${N} samples (100 %)`,
      "upgraded database schema 6 → 7",
      ENGINE_STEP_LINE,
      expect.stringMatching(/^compacting the database file after the upgrade: \d+ MB, of which \d+ MB free$/),
      expect.stringMatching(/^compacted the database file: \d+ MB$/),
    ]);
  });

  it("reads every sample, decoded from its blocks through version 6's samples view, exactly as before", () => {
    expect(loadSampleTables(store.db).prepare(ALL_SAMPLES).all()).toEqual(written.samples);
  });

  it("keeps the rollups and leaves no old table", () => {
    expect(store.db.prepare("SELECT * FROM rollups").all()).toEqual(written.rollups);
    const objects = store.db
      .prepare("SELECT name FROM sqlite_master WHERE tbl_name LIKE 'raw_samples%' OR name = 'samples'")
      .all();
    expect(objects).toEqual([]);
    expect(store.db.prepare("SELECT sum(n) AS n FROM raw_blocks").get()).toEqual({ n: N });
  });

  it("opens again without upgrading twice", async () => {
    await store.close();
    const again: string[] = [];
    const reopened = openStore(dbPath, { log: (l) => again.push(l) });
    expect(again).toEqual([]);
    expect(reopened.db.prepare("SELECT sum(n) AS n FROM raw_blocks").get()).toEqual({ n: N });
    await reopened.close();
  });
});

describe("a version 3 database", () => {
  const dbPath = path.join(dir, "v3.db");
  const written = writeV4(dbPath, 3);
  const lines: string[] = [];
  const store = openStore(dbPath, { log: (l) => lines.push(l) });
  afterAll(() => store.close());

  it("gets its running totals, then its raw samples packed, each step with its lines", () => {
    expect(lines.filter((l) => !/\d+ \/ \d+ samples/.test(l) && !/compact/.test(l))).toEqual([
      "upgrading database schema 3 → 4: running totals from 1 day rollups",
      "upgraded database schema 3 → 4",
      `upgrading database schema 4 → 5: ${N} samples`,
      "upgraded database schema 4 → 5",
      `upgrading database schema 6 → 7: ${N} samples into blocks`,
      "upgraded database schema 6 → 7",
      ENGINE_STEP_LINE,
    ]);
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(SCHEMA_VERSION),
    });
    // The client's total and the aggregate's, from the client's day row.
    expect(
      store.db.prepare("SELECT client, class, failures, skipped FROM rollups WHERE level = 4 ORDER BY client").all(),
    ).toEqual([
      { client: 0, class: 255, failures: 3, skipped: 1 },
      { client: 1, class: 0, failures: 3, skipped: 1 },
    ]);
    expect(loadSampleTables(store.db).prepare(ALL_SAMPLES).all()).toEqual(written.samples);
  });
});

describe("a version 4 database with a row the packed layout cannot hold", () => {
  const dbPath = path.join(dir, "bad.db");
  const written = writeV4(dbPath);
  const bad = new Database(dbPath);
  bad.prepare("UPDATE raw_samples SET flags = 65536 WHERE seq = 55000").run();
  const before = bad.prepare(ALL_SAMPLES).all();
  bad.close();

  it("refuses the upgrade, naming the row, and leaves the file at version 4 as it was", () => {
    expect(() => openStore(dbPath, { log: () => {} })).toThrow(UnpackableRowError);
    const db = new Database(dbPath, { readonly: true });
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: "4" });
    expect(db.prepare(ALL_SAMPLES).all()).toEqual(before);
    db.close();
  });

  it("completes once the row is mended", async () => {
    const db = new Database(dbPath);
    db.prepare("UPDATE raw_samples SET flags = 7939 WHERE seq = 55000").run();
    db.close();
    const store = openStore(dbPath, { log: () => {} });
    expect(loadSampleTables(store.db).prepare(ALL_SAMPLES).all()).toEqual(
      written.samples.map((r) => ((r as { seq: number }).seq === 55000 ? { ...(r as object), flags: 7939 } : r)),
    );
    await store.close();
  });
});

describe("a file marked version 4 whose raw table is already packed", () => {
  it("is not repacked, and reads as before", async () => {
    const dbPath = path.join(dir, "marked.db");
    writeV4(dbPath);
    const first = openStore(dbPath, { log: () => {} });
    const samples = loadSampleTables(first.db).prepare(ALL_SAMPLES).all();
    first.db.prepare("UPDATE meta SET value = '4' WHERE key = 'schema_version'").run();
    await first.close();
    const lines: string[] = [];
    const again = openStore(dbPath, { log: (l) => lines.push(l) });
    expect(lines).toEqual([]);
    expect(again.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(SCHEMA_VERSION),
    });
    expect(loadSampleTables(again.db).prepare(ALL_SAMPLES).all()).toEqual(samples);
    await again.close();
  });
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
