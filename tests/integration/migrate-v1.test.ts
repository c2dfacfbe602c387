// A database written by version 1 of the schema (tests/fixtures/schema-v1.sql,
// the DDL tailprobe shipped before rollups, with the columns two later
// version 1 writers add by ALTER TABLE) opens in version 3: every sample is
// still there with every field, the rollups agree with the raw samples, and
// the upgrade printed its progress.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { withQueries } from "../../server/query/with-queries.js";
import { openStore } from "../../server/store/sqlite/store.js";
import { tempDir } from "../../testkit/server-process.js";
import { mulberry32 } from "../../shared/prng.js";
import { SCHEMA_VERSION } from "../../server/store/sqlite/schema.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const V1_DDL = fs.readFileSync(path.resolve("tests/fixtures/schema-v1.sql"), "utf8");
const T0 = 1_750_000_000_000;
const N = 3000;
const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface V1Row {
  session: number;
  seq: number;
  t: number;
  method: string;
  target: string;
  ms: number | null;
  outcome: string;
  scheduled_t: number | null;
  late_ms: number | null;
  hidden_ms: number | null;
  flags: number;
  reason: string | null;
  winner: string | null;
  other_ms: number | null;
  other_outcome: string | null;
  minrtt: number | null;
  server_lag_ms: number | null;
  server_ms: number | null;
}

function writeV1(dbPath: string): V1Row[] {
  const db = new Database(dbPath);
  db.pragma("journal_mode = WAL");
  db.exec(V1_DDL);
  db.exec(
    "ALTER TABLE samples ADD COLUMN server_ms REAL; ALTER TABLE sessions ADD COLUMN timer_resolution_us INTEGER;",
  );
  db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '1')").run();
  db.prepare(
    "INSERT INTO sessions (id, session_key, client_id, label, user_agent, first_seen_ms, timer_resolution_us) VALUES (1, 'sess_a', 'client_a', 'laptop', 'UA', ?, 100)",
  ).run(T0);
  db.prepare(
    "INSERT INTO sessions (id, session_key, client_id, label, user_agent, first_seen_ms, timer_resolution_us) VALUES (2, 'sess_b', 'client_b', NULL, NULL, ?, NULL)",
  ).run(T0);
  const rand = mulberry32(99);
  const rows: V1Row[] = [];
  const us = (x: number) => Math.round(x * 1000) / 1000;
  for (let i = 0; i < N; i++) {
    const method = ["xhr", "jsonp", "ws", "best2", "ping", "tcprtt"][i % 6]!;
    const target = method === "best2" ? "A+B" : i % 12 < 6 ? "A" : "B";
    const r = rand();
    const outcome = r < 0.03 ? "timeout" : r < 0.05 ? "error" : r < 0.06 ? "skipped" : "ok";
    const ms = outcome === "timeout" ? 5000 : outcome === "ok" ? us(0.5 + rand() * 40) : null;
    const probe = method !== "ping" && method !== "tcprtt";
    const t = T0 + i * 1000 + Math.floor(rand() * 900);
    rows.push({
      session: 1 + (i % 2),
      seq: Math.floor(i / 2),
      t,
      method,
      target,
      ms,
      outcome,
      scheduled_t: probe ? t - 2 : null,
      late_ms: probe ? us(rand() * 30) : null,
      hidden_ms: probe ? 0 : null,
      flags: probe ? 0x0f03 : 0,
      reason: outcome === "error" ? "http-503" : outcome === "skipped" ? "frozen" : null,
      winner: method === "best2" && outcome === "ok" ? "ws" : null,
      other_ms: method === "best2" && ms !== null ? us(ms + 3) : null,
      other_outcome: method === "best2" && ms !== null ? "ok" : null,
      minrtt: method === "tcprtt" ? 0.031 : null,
      server_lag_ms: probe ? 0.125 : null,
      server_ms: probe ? 0.25 : null,
    });
  }
  const insert =
    db.prepare(`INSERT INTO samples (session, seq, t, method, target, ms, outcome, scheduled_t, late_ms, hidden_ms, flags, reason,
    winner, other_ms, other_outcome, minrtt, server_lag_ms, server_ms) VALUES (@session, @seq, @t, @method, @target, @ms, @outcome,
    @scheduled_t, @late_ms, @hidden_ms, @flags, @reason, @winner, @other_ms, @other_outcome, @minrtt, @server_lag_ms, @server_ms)`);
  db.transaction(() => rows.forEach((r) => insert.run(r)))();
  db.close();
  return rows;
}

describe("a version 1 database", () => {
  const dbPath = path.join(dir, "v1.db");
  const written = writeV1(dbPath);
  const lines: string[] = [];
  const store = withQueries(openStore(dbPath, { log: (l) => lines.push(l) }));
  afterAll(() => store.close());

  it("is upgraded to the current version with a progress line", () => {
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(SCHEMA_VERSION),
    });
    // Into version 6's row table, then into blocks (store version 7).
    expect(lines[0]).toBe(`upgrading database schema 1 → 6: ${N} samples`);
    expect(lines).toContain(`upgrading database schema 1 → 6: ${N} / ${N} samples (100 %)`);
    expect(lines).toContain(`upgraded database schema 1 → 6`);
    expect(lines).toContain(`upgrading database schema 6 → 7: ${N} samples into blocks`);
    expect(lines).toContain(`upgraded database schema 6 → 7`);
    expect(lines.at(-1)).toMatch(/^compacted the database file: \d+ MB$/);
  });

  it("keeps every sample with every field", () => {
    const back = loadSampleTables(store.db).prepare("SELECT * FROM samples ORDER BY session, seq").all() as V1Row[];
    const want = [...written].sort((a, b) => a.session - b.session || a.seq - b.seq);
    expect(back).toEqual(want);
  });

  it("keeps sessions, their clients, labels and timer resolution", () => {
    const s = store.db
      .prepare("SELECT session_key, client_id, label, user_agent, timer_resolution_us FROM sessions ORDER BY id")
      .all();
    expect(s).toEqual([
      { session_key: "sess_a", client_id: "client_a", label: "laptop", user_agent: "UA", timer_resolution_us: 100 },
      { session_key: "sess_b", client_id: "client_b", label: null, user_agent: null, timer_resolution_us: null },
    ]);
  });

  it("gives each session the t of its oldest and newest sample", () => {
    const span = (session: number) => {
      const ts = written.filter((r) => r.session === session).map((r) => r.t);
      return { first_t: Math.min(...ts), last_t: Math.max(...ts) };
    };
    expect(store.db.prepare("SELECT first_t, last_t FROM sessions ORDER BY id").all()).toEqual([span(1), span(2)]);
  });

  it("builds rollups that count every sample once, at every level and in the running totals (level 4)", () => {
    const perLevel = store.db
      .prepare(
        "SELECT level, sum(failures) AS failures, sum(skipped) AS skipped FROM rollups WHERE client <> 0 GROUP BY level ORDER BY level",
      )
      .all();
    const failures = written.filter((r) => r.outcome === "timeout" || r.outcome === "error").length;
    const skipped = written.filter((r) => r.outcome === "skipped").length;
    expect(perLevel).toEqual([0, 1, 2, 3, 4].map((level) => ({ level, failures, skipped })));
    // The aggregate rows (any client, any class) count the same.
    const any = store.db
      .prepare(
        "SELECT level, sum(failures) AS failures, sum(skipped) AS skipped FROM rollups WHERE client = 0 GROUP BY level ORDER BY level",
      )
      .all();
    expect(any).toEqual(perLevel);
  });

  it("answers stats as before the upgrade", async () => {
    const rows = await store.stats({ fromMs: T0, toMs: T0 + N * 1000 });
    const xhrA = written.filter((r) => r.method === "xhr" && r.target === "A" && r.outcome === "ok").map((r) => r.ms!);
    const row = rows.find((r) => r.method === "xhr" && r.target === "A")!;
    expect(row.count).toBe(xhrA.length);
    expect(row.max).toBe(Math.max(...xhrA));
    expect(rows.find((r) => r.method === "tcpminrtt")?.count).toBe(
      written.filter((r) => r.method === "tcprtt").length / 2,
    );
  });

  it("opens again without upgrading twice", () => {
    store.close();
    const again: string[] = [];
    const s2 = openStore(dbPath, { log: (l) => again.push(l) });
    expect(again).toEqual([]);
    expect((s2.db.prepare("SELECT sum(n) AS n FROM raw_blocks").get() as { n: number }).n).toBe(N);
    s2.close();
  });
});
