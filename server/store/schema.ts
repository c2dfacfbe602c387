// The database layout, version 7: raw samples in blocks (one row per write,
// session and 5-minute bucket; small-integer codes, integer µs, raw-block.ts)
// and rollup histograms per (level, time bucket, series, client, flag class).
import { BEST2_LEGS, OUTCOMES } from "../../shared/methods.js";
import { samplesViewSql } from "./raw-layout.js";

/**
 * 5: version 4's tables, raw_samples' sparse columns folded (raw-layout.ts).
 * 6: the same tables; rollup BLOBs written in shared/rollup.ts' compact form,
 * which a version 5 tailprobe would misread (it refuses a newer file). Stored
 * version 5 BLOBs are read as they are and rewritten compact when their row changes.
 * 7: raw samples in blocks (raw_blocks, raw-block.ts) instead of a row each;
 * sessions.max_seq. No samples view: SQL cannot read a block.
 */
export const SCHEMA_VERSION = 7;

/** Bits of raw_samples.flags: booleans of the wire sample packed into one integer. */
export const FLAG = {
  visibleAtSend: 1,
  visibleAtReply: 2,
  froze: 4,
  fresh: 8,
  /** Reserved for the wire's `reportInFlight` (a report was being sent when the probe ran). */
  reportInFlight: 16,
} as const;
/** Bits recording that the boolean was present at all (absent ≠ false). */
export const FLAG_KNOWN_SHIFT = 8;

/** A sample's outcome / otherOutcome as stored: index into OUTCOMES (raw-layout.ts folds them into raw_samples). */
export const outcomeCode = (o: string): number => (OUTCOMES as readonly string[]).indexOf(o);
/** A best2 sample's winner as stored: index into BEST2_LEGS. */
export const winnerCode = (w: string): number => (BEST2_LEGS as readonly string[]).indexOf(w);

/**
 * Raw samples in blocks (raw-block.ts; store version 7, docs/architecture.md):
 * one row per write, session and 5-minute bucket. start_ms first: readers ask
 * for time ranges, whole buckets at a time. seq_last and n let a redelivery's
 * lookup and a row count skip the BLOB.
 */
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
-- level (0: 5 minutes, 1: hour, 2: 6 hours, 3: day, 4: all time with start_ms 0; rollup-class.ts), series, client and flag class
-- (rollup-class.ts). lat: ok latencies; tmo: timeout values; margin: best2's
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
  -- Client and class before time: a query reads one contiguous run per
  -- (client, class) it keeps, and the aggregate rows (client 0, class 255)
  -- are one run of their own.
  PRIMARY KEY (level, client, class, start_ms, series)
) WITHOUT ROWID;
${RAW_BLOCKS_DDL}
`;

/**
 * Version 6's raw table, one row per sample, and the samples view over it:
 * what the upgrades of older files write into (migrate.ts) before their rows
 * become blocks (migrate-blocks.ts). Not in a version 7 file.
 */
export const RAW_SAMPLES_V6_DDL = `
-- One row per probe, baseline or skipped tick. WITHOUT ROWID keyed on
-- (t, session, seq): every reader asks for a time range (edge buckets, export,
-- outliers, retention), so the storage order is time and no second index is
-- needed (version 2's t index was a quarter of the disk). A redelivered sample
-- carries the t it was first sent with, so the key makes redelivery idempotent
-- as (session, seq) did (the PostgreSQL store's key holds t for its own reason).
-- Latencies are integer µs (the wire's ms to 3 decimals); t is epoch ms as on the wire.
-- status, sched and detail hold folded values (raw-layout.ts; the samples view unfolds them).
CREATE TABLE IF NOT EXISTS raw_samples (
  session   INTEGER NOT NULL,
  seq       INTEGER NOT NULL,
  t         INTEGER NOT NULL,  -- epoch ms, when sent
  series    INTEGER NOT NULL,  -- series.id
  status    INTEGER NOT NULL,  -- outcome, flags and reason folded (raw-layout.ts)
  us        INTEGER,           -- latency; timeout value for timeouts; NULL for error/skipped
  sched     INTEGER,           -- t - scheduledT (ms) less late_us' whole ms
  late_us   INTEGER,
  hidden_us INTEGER,
  detail    INTEGER,           -- best2: the race packed; tcprtt: min RTT µs
  lag_us    INTEGER,           -- the echo server's event-loop delay
  server_us INTEGER,           -- the server's handler time (wire serverMs)
  PRIMARY KEY (t, session, seq)
) WITHOUT ROWID;
${samplesViewSql()}
`;

/** Milliseconds (the wire's unit, 3 decimals at most matter) → integer µs. */
export const toUs = (ms: number): number => Math.round(ms * 1000);
export const toUsOrNull = (ms: number | null | undefined): number | null =>
  ms === null || ms === undefined ? null : toUs(ms);
