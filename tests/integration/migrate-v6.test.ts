// A database written by version 6 of the schema (raw samples a row each,
// server/store/sqlite/migrations/v6-rows.ts RAW_SAMPLES_V6_DDL) opens in version 7 with every
// sample in blocks (server/store/sqlite/migrations/blocks.ts): each row reads back as
// it was, a seq a page re-sent at another time within one bucket included;
// each session's highest seq is set, so a redelivery after the upgrade is
// recognised; the old table and view are gone; a second opening does not
// upgrade again.
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { logicalRawSelectSql } from "../../server/store/sqlite/migrations/v6-rows.js";
import { packRaw } from "../../server/store/sqlite/raw-layout.js";
import { DDL, SCHEMA_VERSION } from "../../server/store/sqlite/schema.js";
import { RAW_SAMPLES_V6_DDL } from "../../server/store/sqlite/migrations/v6-rows.js";
import { openStore } from "../../server/store/sqlite/store.js";
import { INSERT_RAW } from "../../server/store/sqlite/migrations/v6-rows.js";
import { loadSampleTables } from "../../testkit/sample-table.js";
import { tempDir } from "../../testkit/server-process.js";

const T0 = Date.UTC(2026, 10, 20, 11, 58);
/** Over one of the upgrade's pages (50,000 rows), across many 5-minute buckets. */
const N = 52_000;
const dir = tempDir();
const LOGICAL = `${logicalRawSelectSql()} ORDER BY r.t, r.session, r.seq`;

/** A version 6 file: two sessions' probes and pings, and session 1's seq 7 stored twice, 10 ms apart. */
function writeV6(dbPath: string): unknown[] {
  const db = new Database(dbPath);
  db.pragma("journal_mode = WAL");
  // Version 6's tables: today's less raw_blocks and sessions.max_seq, plus the row table and its view.
  db.exec(DDL.replace(/,\s*-- The highest seq stored[^\n]*\n\s*max_seq\s+INTEGER/, "") + RAW_SAMPLES_V6_DDL);
  db.exec("DROP TABLE raw_blocks");
  db.exec(`INSERT INTO meta (key, value) VALUES ('schema_version', '6');
    INSERT INTO clients (id, client_key) VALUES (1, 'client_a'), (2, 'client_b');
    INSERT INTO sessions (id, session_key, client_id, client, first_seen_ms) VALUES (1, 'session_a', 'client_a', 1, ${T0}), (2, 'session_b', 'client_b', 2, ${T0});
    INSERT INTO series (id, method, target) VALUES (1, 'xhr', 'A'), (2, 'ping', 'A');`);
  const insert = db.prepare(INSERT_RAW);
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const session = 1 + (i % 2);
      const seq = Math.floor(i / 2);
      const xhr = i % 3 !== 0;
      const row = [
        session,
        seq,
        T0 + seq * 40 + session,
        xhr ? 1 : 2,
        0,
        1000 + (i % 997),
        xhr ? 2 : null,
        xhr ? 1500 : null,
        xhr ? 0 : null,
        xhr ? 0x1f03 : 0,
        null,
        null,
        null,
        null,
        null,
        80,
        30,
      ];
      insert.run(packRaw(row, xhr ? "xhr" : "ping"));
    }
    // The same seq at a later t in the same bucket: stored beside the first, as the (t, session, seq) key allowed.
    insert.run(
      packRaw(
        [1, 7, T0 + 7 * 40 + 1 + 10, 1, 0, 4321, 2, 1500, 0, 0x1f03, null, null, null, null, null, 80, 30],
        "xhr",
      ),
    );
  })();
  const rows = db.prepare(LOGICAL).all();
  db.close();
  return rows;
}

describe("a version 6 database", () => {
  const dbPath = path.join(dir, "v6.db");
  const written = writeV6(dbPath);
  const lines: string[] = [];
  const store = openStore(dbPath, { log: (l) => lines.push(l) });
  afterAll(() => store.close());

  it("is upgraded to version 7 (then 8, nothing to convert) with progress lines", () => {
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(SCHEMA_VERSION),
    });
    expect(SCHEMA_VERSION).toBe(8);
    expect(lines.slice(0, 4)).toEqual([
      `upgrading database schema 6 → 7: ${N + 1} samples into blocks`,
      `upgrading database schema 6 → 7: 50000 / ${N + 1} samples (96 %)`,
      `upgrading database schema 6 → 7: ${N + 1} / ${N + 1} samples (100 %)`,
      "upgraded database schema 6 → 7",
    ]);
  });

  it("keeps every sample with every column, a seq stored at two times included", () => {
    expect(written).toHaveLength(N + 1);
    expect(loadSampleTables(store.db).prepare(LOGICAL).all()).toEqual(written);
    const twice = store.db.prepare("SELECT t, us FROM raw_samples WHERE session = 1 AND seq = 7 ORDER BY t").all();
    expect(twice).toEqual([
      { t: T0 + 7 * 40 + 1, us: 1000 + (14 % 997) },
      { t: T0 + 7 * 40 + 11, us: 4321 },
    ]);
  });

  it("leaves no row table or view, and sets each session's highest seq", () => {
    expect(store.db.prepare("SELECT name FROM sqlite_master WHERE name IN ('raw_samples', 'samples')").all()).toEqual(
      [],
    );
    expect(store.db.prepare("SELECT id, max_seq FROM sessions ORDER BY id").all()).toEqual([
      { id: 1, max_seq: N / 2 - 1 },
      { id: 2, max_seq: N / 2 - 1 },
    ]);
  });

  it("recognises a redelivery after the upgrade, and stores what is new", async () => {
    const again = [6, 7, 8].map((seq) => ({
      seq,
      t: T0 + seq * 40 + 1,
      method: "xhr" as const,
      target: "A",
      ms: 1,
      outcome: "ok" as const,
    }));
    const fresh = { seq: N, t: T0 + N * 40, method: "xhr" as const, target: "A", ms: 2, outcome: "ok" as const };
    expect(
      await store.insertBatch(
        { clientId: "client_a", sessionId: "session_a", samples: [...again, fresh] },
        { userAgent: null, receivedAtMs: T0 },
      ),
    ).toEqual({
      accepted: 1,
      duplicates: 3,
    });
  });

  it("opens again without upgrading twice", async () => {
    await store.close();
    const more: string[] = [];
    const reopened = openStore(dbPath, { log: (l) => more.push(l) });
    expect(more).toEqual([]);
    expect(reopened.db.prepare("SELECT sum(n) AS n FROM raw_blocks").get()).toEqual({ n: N + 2 });
    await reopened.close();
  });
});
