// Writes to the tables beside the samples (a feature's own small tables,
// "Adding a table" in docs/architecture.md) on the writer's
// connection: the only read-write one, which in the server lives in the
// writer thread. A feature's SQLite adapter hands its statements here and
// never opens a connection of its own, so the event loop never waits on a
// lock and a write queues behind the batches posted before it.
import type Database from "better-sqlite3";
import type { SqlParam } from "../read-pool.js";

/** One statement and its `?` parameters. */
export interface SqlStatement {
  sql: string;
  params: readonly SqlParam[];
}

/** What a statement did: rows changed, the last rowid inserted, and the rows it returned (RETURNING, or a SELECT). */
export interface StatementResult {
  changes: number;
  lastInsertRowid: number;
  rows: unknown[];
}

export interface SqliteWrites {
  /**
   * Runs the statements in one transaction (all or none), after the writes
   * already queued; resolves with each one's result, or rejects with a
   * StorageError carrying SQLite's code (SQLITE_FULL, SQLITE_BUSY, …).
   */
  run(statements: readonly SqlStatement[]): Promise<StatementResult[]>;
}

/** Prepared statements kept per connection: a feature's statements are few and fixed. */
const PREPARED_MAX = 256;

/** Runs statements on `db` (the writer's connection) in one transaction: the writer thread's side of SqliteWrites. */
export function statementRunner(db: Database.Database): (statements: readonly SqlStatement[]) => StatementResult[] {
  const prepared = new Map<string, Database.Statement>();
  const prepare = (sql: string): Database.Statement => {
    let s = prepared.get(sql);
    if (s === undefined) {
      if (prepared.size >= PREPARED_MAX) prepared.clear();
      prepared.set(sql, (s = db.prepare(sql)));
    }
    return s;
  };
  const counts = db.prepare<[], { changes: number; rowid: number }>(
    "SELECT changes() AS changes, last_insert_rowid() AS rowid",
  );
  const all = db.transaction((statements: readonly SqlStatement[]) =>
    statements.map(({ sql, params }): StatementResult => {
      const s = prepare(sql);
      if (s.reader) {
        // A SELECT, or a write with RETURNING: its rows, and what a write changed.
        const rows = s.all(...params);
        if (s.readonly) return { changes: 0, lastInsertRowid: 0, rows };
        const c = counts.get()!;
        return { changes: c.changes, lastInsertRowid: c.rowid, rows };
      }
      const r = s.run(...params);
      return { changes: r.changes, lastInsertRowid: Number(r.lastInsertRowid), rows: [] };
    }),
  );
  return (statements) => all.immediate(statements);
}
