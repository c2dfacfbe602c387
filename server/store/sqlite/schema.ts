// The SQLite layout, version 11: raw samples in blocks (one row per write,
// session and 5-minute bucket; small-integer codes, integer µs, raw-block.ts)
// and rollup histograms per (level, time bucket, series, client, flag class).
// Older files are upgraded step by step (migrations/).
import { INCIDENTS_DDL } from "./incidents.js";

/**
 * 5: version 4's tables, raw_samples' sparse columns folded (raw-layout.ts).
 * 6: the same tables; rollup BLOBs written in shared/rollup.ts' compact form,
 * which a version 5 tailprobe would misread (it refuses a newer file). Stored
 * version 5 BLOBs are read as they are and rewritten compact when their row changes.
 * 7: raw samples in blocks (raw_blocks, raw-block.ts) instead of a row each;
 * sessions.max_seq. No samples view: SQL cannot read a block.
 * 8: a sample's identity is (session, seq), not (t, session, seq): blocks
 * indexed by (session, seq_last) so a re-sent seq is found in any bucket.
 * 9: sessions.engine, the page's browser engine (docs/engines.md).
 * 10: rollups.srv, the server's handler time of ok probes (the change finder's
 * "server time"); rows written before have none.
 * 11: a block's sample may carry a stress test's run and phase (raw-block.ts
 * NULLABLE "stress"), which a version 10 reader refuses; stress_runs.
 */
export const SCHEMA_VERSION = 11;

/**
 * Raw samples in blocks (raw-block.ts; store version 7, docs/architecture.md):
 * one row per write, session and 5-minute bucket. start_ms first: readers ask
 * for time ranges, whole buckets at a time. seq_last and n let a redelivery's
 * lookup and a row count skip the BLOB.
 */
/**
 * A session's blocks by seq range (version 8): a batch that goes back to a
 * stored seq finds the blocks that may hold it in any bucket (block-writer.ts).
 * An entry per block, not per sample: about 1 % of the raw table's bytes.
 */
export const RAW_BLOCKS_SEQ_INDEX_DDL =
  "CREATE INDEX IF NOT EXISTS raw_blocks_session_seq ON raw_blocks (session, seq_last);";

export const RAW_BLOCKS_DDL = `
CREATE TABLE IF NOT EXISTS raw_blocks (
  start_ms INTEGER NOT NULL,  -- the 5-minute bucket's start (epoch ms)
  session  INTEGER NOT NULL,  -- sessions.id
  seq0     INTEGER NOT NULL,  -- the block's first seq
  seq_last INTEGER NOT NULL,  -- its last seq
  n        INTEGER NOT NULL,  -- samples in the block
  data     BLOB NOT NULL,     -- raw-block.ts
  PRIMARY KEY (start_ms, session, seq0)
) WITHOUT ROWID;`;

/** Alert state (../alert-state.ts, alert-state.ts): one row per alert label set, holding its latest episode. */
export const ALERT_STATE_DDL = `
CREATE TABLE IF NOT EXISTS alert_state (
  fingerprint   TEXT PRIMARY KEY,
  labels        TEXT NOT NULL,              -- JSON object
  annotations   TEXT NOT NULL,              -- JSON object
  starts_at_ms  INTEGER NOT NULL,
  ends_at_ms    INTEGER,                    -- NULL while firing
  generator_url TEXT NOT NULL,
  sent          TEXT NOT NULL DEFAULT '{}', -- JSON: receiver key → "firing" | "resolved"
  owner         TEXT NOT NULL,              -- the server that recorded the last transition
  changed_ms    INTEGER NOT NULL
);`;

/**
 * Stress-test runs (docs/stress.md): a code per run key, added by the writer
 * at the run's first sample (its samples carry the code, raw-layout.ts
 * `stress`), and the page's report (POST /api/stress) once it comes: its
 * session, target, span, outcome and phases (JSON, as the contract's
 * phaseReportSchema). A run without a report has NULL start_ms and is not answered.
 */
export const STRESS_RUNS_DDL = `
CREATE TABLE IF NOT EXISTS stress_runs (
  id       INTEGER PRIMARY KEY,
  run_key  TEXT NOT NULL UNIQUE,
  session  INTEGER,           -- sessions.id of the page that reported it
  target   TEXT,
  start_ms INTEGER,           -- the first phase's start (epoch ms)
  end_ms   INTEGER,           -- the last reported phase's end
  outcome  TEXT,
  reason   TEXT,
  phases   TEXT               -- JSON array of the report's phases
);
CREATE INDEX IF NOT EXISTS stress_runs_start ON stress_runs (start_ms);`;

/**
 * Every table, created if missing at every open (migrations/migrate.ts), so a
 * table added beside them needs no version step: append its DDL here. A new
 * column on an existing table does: a step in migrations/ and SCHEMA_VERSION + 1.
 */
export const DDL = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS clients (
  id         INTEGER PRIMARY KEY,
  client_key TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS sessions (
  id                  INTEGER PRIMARY KEY,
  session_key         TEXT NOT NULL UNIQUE,
  client_id           TEXT NOT NULL,
  client              INTEGER NOT NULL REFERENCES clients (id),
  label               TEXT,
  user_agent          TEXT,
  first_seen_ms       INTEGER NOT NULL,
  timer_resolution_us INTEGER,
  -- The engine of the session's page: chromium, gecko or webkit (shared/methods.ts BROWSER_ENGINES).
  engine              TEXT,
  -- The t of the session's oldest and newest stored sample: raw samples are in
  -- time order, so "when was this session last heard" is read here, not there.
  first_t             INTEGER,
  last_t              INTEGER,
  -- The highest seq stored: a batch above it needs no duplicate lookup (block-writer.ts).
  max_seq             INTEGER
);
CREATE INDEX IF NOT EXISTS sessions_client ON sessions (client_id);
-- (method, target) pairs, a derived series (tcpminrtt) included.
CREATE TABLE IF NOT EXISTS series (
  id     INTEGER PRIMARY KEY,
  method TEXT NOT NULL,
  target TEXT NOT NULL,
  UNIQUE (method, target)
);
CREATE TABLE IF NOT EXISTS reasons (
  id   INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
);
-- Mergeable histograms (shared/rollup.ts encoding) per time bucket of a
-- level (0: 5 minutes, 1: hour, 2: 6 hours, 3: day, 4: all time with start_ms 0; ../rollup-class.ts), series, client and flag class
-- (../rollup-class.ts). lat: ok latencies; tmo: timeout values; margin: best2's
-- loser-minus-winner. Maintained in the ingest transaction.
CREATE TABLE IF NOT EXISTS rollups (
  level      INTEGER NOT NULL,
  start_ms   INTEGER NOT NULL,
  series     INTEGER NOT NULL,
  client     INTEGER NOT NULL,
  class      INTEGER NOT NULL,
  failures   INTEGER NOT NULL DEFAULT 0,
  skipped    INTEGER NOT NULL DEFAULT 0,
  lat        BLOB,
  tmo        BLOB,
  wins_ws    INTEGER NOT NULL DEFAULT 0,
  wins_jsonp INTEGER NOT NULL DEFAULT 0,
  margin     BLOB,
  -- The server's handler time of ok probes (version 9 on).
  srv        BLOB,
  -- Client and class before time: a query reads one contiguous run per
  -- (client, class) it keeps, and the aggregate rows (client 0, class 255)
  -- are one run of their own.
  PRIMARY KEY (level, client, class, start_ms, series)
) WITHOUT ROWID;
${RAW_BLOCKS_DDL}
${RAW_BLOCKS_SEQ_INDEX_DDL}
${INCIDENTS_DDL}
${STRESS_RUNS_DDL}
${ALERT_STATE_DDL}
`;
