// The engine column (issue 38) on databases written before it: an SQLite
// file at version 7 and a PostgreSQL database at version 5, their sessions
// tables as those versions wrote them (today's, less the column), each with a
// session stored. Opened by this tailprobe, each gains sessions.engine, empty
// for the old session, says so once, and a new batch's engine is kept.
import path from "node:path";
import Database from "better-sqlite3";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { openStoreFor } from "../../server/store/open.js";
import { SCHEMA_VERSION as PG_VERSION, TABLES_PG } from "../../server/store/postgres/schema.js";
import { DDL, SCHEMA_VERSION as SQLITE_VERSION } from "../../server/store/sqlite/schema.js";
import { tempDir } from "../../testkit/server-process.js";
import { STORE_KINDS, testPostgres } from "../helpers/store-kinds.js";

const ENGINE_COLUMN = /\n\s*-- The engine of the session's page[^\n]*\n\s*engine\s+(?:TEXT|text),/;
const T0 = Date.UTC(2026, 10, 26, 12);

async function olderDatabase(kind: "sqlite" | "postgres"): Promise<string> {
  if (kind === "sqlite") {
    const file = path.join(tempDir(), "v7.db");
    const db = new Database(file);
    expect(DDL).toMatch(ENGINE_COLUMN);
    db.exec(DDL.replace(ENGINE_COLUMN, ""));
    db.exec(`INSERT INTO meta (key, value) VALUES ('schema_version', '8');
      INSERT INTO clients (id, client_key) VALUES (1, 'client_old');
      INSERT INTO sessions (id, session_key, client_id, client, first_seen_ms, timer_resolution_us)
        VALUES (1, 'session_old', 'client_old', 1, ${T0}, 100);`);
    db.close();
    return file;
  }
  const url = await (await testPostgres()).createDatabase("v5_engine");
  const sql = postgres(url, { onnotice: () => {} });
  const sessions = TABLES_PG.find((t) => t.includes("TABLE IF NOT EXISTS sessions"))!;
  expect(sessions).toMatch(/\n\s*engine\s+text,/);
  for (const ddl of TABLES_PG) await sql.unsafe(ddl === sessions ? ddl.replace(/\n\s*engine\s+text,/, "") : ddl);
  await sql`INSERT INTO meta (key, value) VALUES ('schema_version', '6')`;
  // No explicit ids: the identity columns hand them out, as the old server's inserts had them.
  const [client] = await sql`INSERT INTO clients (client_key) VALUES ('client_old') RETURNING id`;
  await sql`INSERT INTO sessions (session_key, client_id, client, first_seen_ms, timer_resolution_us)
    VALUES ('session_old', 'client_old', ${client!.id as number}, ${T0}, 100)`;
  await sql.end();
  return url;
}

describe.each(STORE_KINDS)("%s: a database from before sessions.engine", (kind) => {
  const lines: string[] = [];
  let db: string;

  it("gains the column, empty for its old sessions, and keeps a new session's engine", async () => {
    db = await olderDatabase(kind);
    const store = await openStoreFor(db, { log: (l) => lines.push(l) });
    try {
      expect(lines.filter((l) => /engine/.test(l))).toEqual([
        kind === "sqlite"
          ? "upgrading database schema 8 → 9: the engine of each session's page"
          : "tailprobe: upgrading the PostgreSQL schema 6 → 7: the engine of each session's page",
      ]);
      await store.insertBatch(
        {
          clientId: "client_new",
          sessionId: "session_new",
          engine: "webkit",
          timerResolutionMs: 0.02,
          samples: [{ seq: 0, t: T0 + 1000, method: "ws", target: "A", ms: 1, outcome: "ok" }],
        },
        { receivedAtMs: T0 + 1000, userAgent: null },
      );
      const rows = await store.readPool.all<{ session_key: string; engine: string | null; us: number | string | null }>(
        "SELECT session_key, engine, timer_resolution_us AS us FROM sessions ORDER BY id",
        [],
      );
      expect(rows.map((r) => [r.session_key, r.engine, Number(r.us)])).toEqual([
        ["session_old", null, 100],
        ["session_new", "webkit", 20],
      ]);
      const [version] = await store.readPool.all<{ value: string }>(
        "SELECT value FROM meta WHERE key = 'schema_version'",
        [],
      );
      expect(Number(version!.value)).toBe(kind === "sqlite" ? SQLITE_VERSION : PG_VERSION);
    } finally {
      await store.close();
    }
    // A second opening upgrades nothing.
    lines.length = 0;
    const again = await openStoreFor(db, { log: (l) => lines.push(l) });
    await again.close();
    expect(lines.filter((l) => /upgrading/.test(l))).toEqual([]);
  });
});
