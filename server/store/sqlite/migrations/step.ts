// One upgrade step of an SQLite file: from one schema version to a later
// one, in a transaction of its own with progress lines (migrate.ts runs them
// in order). A crash midway leaves the file at the version before the step.
import type Database from "better-sqlite3";

/** What every step is given: where its progress lines go, and how many rows it reads at a time. */
export interface Upgrade {
  log: (line: string) => void;
  /** Rows converted between two progress lines (MIGRATE_CHUNK_ROWS; tests make it small to cross many pages). */
  chunkRows: number;
}

export interface SqliteStep {
  /** The version it upgrades from; it leaves the file at `to`, written in meta in the same transaction. */
  from: number;
  to: number;
  run(db: Database.Database, u: Upgrade): void;
}

/** The version written in meta, inside the step's transaction. */
export const setVersion = (db: Database.Database, version: number): void =>
  void db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(version));

export const columnsOf = (db: Database.Database, table: string): Set<string> =>
  new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
