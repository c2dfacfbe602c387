// The stores every storage-facing integration suite runs against: SQLite
// always, PostgreSQL when Debian's binaries are installed (always in CI).
// One throwaway cluster per test file (testkit/postgres.ts), one fresh
// database per suite on it.
import path from "node:path";
import { afterAll } from "vitest";
import Database from "better-sqlite3";
import postgres from "postgres";
import type { RunningServer } from "../../server/app.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "../../testkit/postgres.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";
import { tempDir } from "../../testkit/server-process.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

export type StoreKind = "sqlite" | "postgres";

/** The kinds to run here: describe.each(STORE_KINDS)("… (%s)", (kind) => …). */
export const STORE_KINDS: StoreKind[] = postgresAvailable() ? ["sqlite", "postgres"] : ["sqlite"];

let cluster: Promise<TestPostgres> | null = null;
afterAll(async () => {
  if (cluster !== null) await (await cluster).stop();
  cluster = null;
});

/** The test cluster of this file, started on first use. */
export const testPostgres = (): Promise<TestPostgres> => (cluster ??= startPostgres());

/** A --db value naming a fresh, empty database of the kind. */
export async function freshDb(kind: StoreKind, name: string): Promise<string> {
  if (kind === "sqlite") return path.join(tempDir(), `${name}.db`);
  return (await testPostgres()).createDatabase(name);
}

/** The rows of a portable SELECT (`?` placeholders) on the server's database, read as the test sees it. */
export async function selectAll<T>(
  server: RunningServer & { options: { dbPath: string } },
  sql: string,
  params: (string | number)[] = [],
): Promise<T[]> {
  if (server.store.kind === "sqlite") {
    const db = sqliteDb(server.store);
    // Raw samples are blocks since store version 7: SQL reads them through decoded TEMP tables.
    if (/\bsamples\b/.test(sql)) loadSampleTables(db);
    return db.prepare(sql).all(...params) as T[];
  }
  let n = 0;
  return selectPostgres<T>(
    server.options.dbPath,
    sql.replace(/\?/g, () => `$${++n}`),
    params,
  );
}

/** One row of a portable SELECT (`?` placeholders) on the server's database. */
export async function selectOne<T>(
  server: RunningServer & { options: { dbPath: string } },
  sql: string,
  params: (string | number)[] = [],
): Promise<T> {
  return (await selectAll<T>(server, sql, params))[0]!;
}

/** Rows of a SELECT (`$n` placeholders) on a PostgreSQL URL, numbers as numbers. */
export async function selectPostgres<T>(url: string, sql: string, params: (string | number)[] = []): Promise<T[]> {
  const pg = postgres(url, {
    max: 1,
    onnotice: () => {},
    types: { int8: { to: 20, from: [20], serialize: String, parse: Number } },
  });
  try {
    return (await pg.unsafe(sql, params)) as unknown as T[];
  } finally {
    await pg.end();
  }
}

/** What a probe page has emitted so far, as its window.tailprobe says. */
export async function pageSent(page: import("playwright-core").Page): Promise<{ sent: number; sessionId: string }> {
  return page.evaluate(() => {
    const tp = (window as unknown as { tailprobe: { sent: number; sessionId: string } }).tailprobe;
    return { sent: tp.sent, sessionId: tp.sessionId };
  });
}

/** A session's stored rows: count, distinct seqs, and the span of seqs (max - min + 1: equal to distinct when none is missing). */
export async function storedSeqs(
  url: string,
  sessionId: string,
): Promise<{ n: number; distinct: number; span: number }> {
  const [row] = await selectPostgres<{ n: number; distinct: number; span: number | null }>(
    url,
    `SELECT count(*) AS n, count(DISTINCT seq) AS distinct, max(seq) - min(seq) + 1 AS span FROM raw_samples
     WHERE session = (SELECT id FROM sessions WHERE session_key = $1)`,
    [sessionId],
  );
  return { n: row?.n ?? 0, distinct: row?.distinct ?? 0, span: row?.span ?? 0 };
}

/** Runs one portable statement (`?` placeholders) on the server's database, beside the server (legacy rows, damage). */
export async function executeOn(
  server: RunningServer & { options: { dbPath: string } },
  sql: string,
  params: (string | number)[] = [],
): Promise<void> {
  if (server.store.kind === "sqlite") {
    const db = new Database(server.options.dbPath);
    try {
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
    return;
  }
  let n = 0;
  await selectPostgres(
    server.options.dbPath,
    sql.replace(/\?/g, () => `$${++n}`),
    params,
  );
}
