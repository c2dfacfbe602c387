// The database layout. Bump SCHEMA_VERSION and add a migration step when it changes.
import type Database from "better-sqlite3";

export const SCHEMA_VERSION = 1;

/** Bits of samples.flags: booleans of the wire sample packed into one integer. */
export const FLAG = {
  visibleAtSend: 1,
  visibleAtReply: 2,
  froze: 4,
  fresh: 8,
  reportInFlight: 16,
} as const;
/** Bits recording that the boolean was present at all (absent ≠ false). */
export const FLAG_KNOWN_SHIFT = 8;

const DDL = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  id            INTEGER PRIMARY KEY,
  session_key   TEXT NOT NULL UNIQUE,
  client_id     TEXT NOT NULL,
  label         TEXT,
  user_agent    TEXT,
  first_seen_ms INTEGER NOT NULL,
  timer_resolution_us REAL  -- the page's performance.now() step (µs); NULL if not reported
);
CREATE INDEX IF NOT EXISTS sessions_client ON sessions (client_id);
-- One row per probe, baseline or skipped tick. WITHOUT ROWID keyed on
-- (session, seq): the key that makes redelivery idempotent is the storage order.
CREATE TABLE IF NOT EXISTS samples (
  session       INTEGER NOT NULL REFERENCES sessions (id),
  seq           INTEGER NOT NULL,
  t             INTEGER NOT NULL,  -- epoch ms, when sent
  method        TEXT    NOT NULL,
  target        TEXT    NOT NULL,
  ms            REAL,              -- latency; timeout value for timeouts; NULL for error/skipped
  outcome       TEXT    NOT NULL,
  scheduled_t   INTEGER,
  late_ms       REAL,
  hidden_ms     REAL,
  flags         INTEGER NOT NULL DEFAULT 0,
  reason        TEXT,
  winner        TEXT,
  other_ms      REAL,
  other_outcome TEXT,
  minrtt        REAL,
  server_lag_ms REAL,
  server_ms     REAL,              -- the echo server's receive-to-send time (ms)
  PRIMARY KEY (session, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS samples_t ON samples (t);
`;

/**
 * Columns added within schema version 1, to databases created before them:
 * added when missing (nullable, so old rows read as "not measured"), so
 * migrate stays idempotent.
 */
const ADDED_COLUMNS = [
  { table: "sessions", column: "timer_resolution_us", type: "REAL" },
  { table: "samples", column: "server_ms", type: "REAL" },
] as const;

export function migrate(db: Database.Database): void {
  db.exec(DDL);
  for (const c of ADDED_COLUMNS) {
    const has = (db.prepare(`PRAGMA table_info(${c.table})`).all() as { name: string }[]).some((r) => r.name === c.column);
    if (!has) db.exec(`ALTER TABLE ${c.table} ADD COLUMN ${c.column} ${c.type}`);
  }
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  if (row === undefined) {
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
  } else if (Number(row.value) > SCHEMA_VERSION) {
    throw new Error(
      `database schema version ${row.value} is newer than this tailprobe understands (${SCHEMA_VERSION}); upgrade tailprobe`,
    );
  }
}
