// The writer's connection to an SQLite file: its settings in one place, for
// the in-process store and the writer thread alike, and the opening step that
// creates or upgrades the schema.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { loadPublicIdKey } from "./meta.js";
import { migrate } from "./migrations/migrate.js";

/** The WAL is truncated to this size after a checkpoint (bytes); without a limit it keeps its largest size. */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** Page cache of the writer connection (KiB). */
export const WRITER_CACHE_KIB = 64 * 1024;
/** How often the WAL is checkpointed and truncated (ms), beside SQLite's own automatic checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 30_000;
/** How long the writer thread waits for another process's lock (ms); past it, ingest answers 503 + Retry-After. */
export const WRITER_BUSY_TIMEOUT_MS = 1000;
/** How long opening and upgrading wait for another process's lock (ms): once, at start. */
const OPEN_BUSY_TIMEOUT_MS = 5000;

/** The writer's settings on a fresh connection; returns it. */
export function configureWriter(db: Database.Database, busyTimeoutMs: number): Database.Database {
  // WAL lets queries read while ingest writes; NORMAL still survives a process
  // crash (SIGKILL) with every committed transaction, and skips an fsync per commit.
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
  // SQLite's default 2 MB page cache makes every insert into a large table read its index pages back from the OS.
  db.pragma(`cache_size = -${WRITER_CACHE_KIB}`);
  return db;
}

/** Opens (creating its folder) and upgrades the file, and makes sure it holds a public-id key. */
export function openWriteConnection(dbPath: string, log: ((line: string) => void) | undefined): Database.Database {
  if (dbPath !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const db = configureWriter(new Database(dbPath), OPEN_BUSY_TIMEOUT_MS);
  migrate(db, log);
  // The key public client ids derive from, created here because the server's
  // own connections are read-only afterwards.
  loadPublicIdKey(db);
  return db;
}
