// Creating a new database, and upgrading one written by an older tailprobe in
// place, each step in one transaction with progress lines and nothing lost; a
// crash midway leaves the old version as it was (SQLite rolls back):
// version 1 (text columns, REAL ms) → 5 (codes, µs, rollups, time-ordered and
// packed raw samples); version 2 (raw samples keyed by session, with a t index) → 3;
// version 3 → 4 (running totals in the rollups); version 4 → 5 (raw samples'
// sparse columns folded, raw-layout.ts); version 5 → 6 (rollups written in the
// compact form from then on: nothing to convert, the old form stays readable);
// version 6 → 7 (raw samples into blocks, migrate-blocks.ts). The steps before
// 7 write version 6's raw_samples (RAW_SAMPLES_V6_DDL), which the last one
// turns into blocks.
import type Database from "better-sqlite3";
import type { Sample } from "../../shared/contract/index.js";
import { RollupBatch } from "./rollup-batch.js";
import { DAY_ROLLUPS_SQL, TOTALS_SINCE_VERSION, totalsFromDays, type DayRollupRow } from "./running-totals.js";
import { packRaw } from "./raw-layout.js";
import { blockRawSamples } from "./migrate-blocks.js";
import { MIGRATE_CHUNK_ROWS, progressLine } from "./migrate-progress.js";
import { DDL, RAW_SAMPLES_V6_DDL, SCHEMA_VERSION } from "./schema.js";
import { addRawToBatch, Codes, INSERT_RAW, RAW_COLUMNS, rawValues, rollupWriter } from "./writer.js";

/** The last version with a row per raw sample: where the older steps lead, before blocks. */
const ROW_LAYOUT_VERSION = 6;

function schemaVersion(db: Database.Database): number | null {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (hasMeta === undefined) return null;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  return row === undefined ? null : Number(row.value);
}

const columnsOf = (db: Database.Database, table: string) =>
  new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));

export function migrate(db: Database.Database, log: (line: string) => void = () => {}): void {
  const version = schemaVersion(db);
  if (version !== null && version > SCHEMA_VERSION)
    throw new Error(
      `database schema version ${version} is newer than this tailprobe understands (${SCHEMA_VERSION}); upgrade tailprobe`,
    );
  if (version === 1) migrateV1(db, log);
  if (version === 2) migrateV2(db, log);
  // Version 1's conversion builds them with every other rollup; 2 (now 3) and 3 have none.
  if (version !== null && version >= 2 && version < TOTALS_SINCE_VERSION) addTotals(db, log);
  // By the table, not the version: versions 1 and 2 convert straight into the packed layout.
  if (version !== null && columnsOf(db, "raw_samples").has("minrtt_us")) packRawSamples(db, log);
  if (version !== null && columnsOf(db, "raw_samples").size > 0) blockRawSamples(db, log);
  db.exec(DDL);
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
  // After any upgrade (one interrupted after its copy step resumes as a later version): compact() checks the free space.
  if (version !== null && version < SCHEMA_VERSION) compact(db, log);
}

/**
 * An upgrade writes the new tables beside the old ones and then drops the
 * old: their pages stay in the file as free pages (a 10 M-sample month:
 * 1,153 MB, of which 593 free). VACUUM rewrites the file without them, once
 * (5 s there, leaving 499 MB); below a tenth free it is skipped.
 */
function compact(db: Database.Database, log: (line: string) => void): void {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const free = (db.pragma("freelist_count", { simple: true }) as number) * pageSize;
  const total = (db.pragma("page_count", { simple: true }) as number) * pageSize;
  if (free < total / 10) return;
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  log(`compacting the database file after the upgrade: ${mb(total)} MB, of which ${mb(free)} MB free`);
  db.exec("VACUUM");
  db.pragma("wal_checkpoint(TRUNCATE)");
  log(`compacted the database file: ${mb((db.pragma("page_count", { simple: true }) as number) * pageSize)} MB`);
}

interface V1Row {
  session: number;
  seq: number;
  t: number;
  method: Sample["method"];
  target: string;
  ms: number | null;
  outcome: Sample["outcome"];
  scheduled_t: number | null;
  late_ms: number | null;
  hidden_ms: number | null;
  flags: number;
  reason: string | null;
  winner: Sample["winner"] | null;
  other_ms: number | null;
  other_outcome: Sample["outcome"] | null;
  minrtt: number | null;
  server_lag_ms: number | null;
  server_ms?: number | null;
}

function migrateV1(db: Database.Database, log: (line: string) => void): void {
  const total = (db.prepare("SELECT count(*) AS n FROM samples").get() as { n: number }).n;
  const step = `1 → ${ROW_LAYOUT_VERSION}`;
  log(`upgrading database schema ${step}: ${total} samples`);
  const hasServerMs = columnsOf(db, "samples").has("server_ms");
  const hasTimerRes = columnsOf(db, "sessions").has("timer_resolution_us");
  db.transaction(() => {
    db.exec(
      "ALTER TABLE samples RENAME TO samples_v1; ALTER TABLE sessions RENAME TO sessions_v1; DROP INDEX IF EXISTS samples_t; DROP INDEX IF EXISTS sessions_client;",
    );
    db.exec(DDL + RAW_SAMPLES_V6_DDL);
    const codes = new Codes(db);
    const addSession = db.prepare(
      "INSERT INTO sessions (id, session_key, client_id, client, label, user_agent, first_seen_ms, timer_resolution_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const sessionClient = new Map<number, number>();
    const sessions = db
      .prepare(
        `SELECT id, session_key, client_id, label, user_agent, first_seen_ms${hasTimerRes ? ", timer_resolution_us" : ""} FROM sessions_v1`,
      )
      .all() as {
      id: number;
      session_key: string;
      client_id: string;
      label: string | null;
      user_agent: string | null;
      first_seen_ms: number;
      timer_resolution_us?: number | null;
    }[];
    for (const s of sessions) {
      const client = codes.clientOf(s.client_id);
      sessionClient.set(s.id, client);
      addSession.run(
        s.id,
        s.session_key,
        s.client_id,
        client,
        s.label,
        s.user_agent,
        s.first_seen_ms,
        s.timer_resolution_us ?? null,
      );
    }
    const addRaw = db.prepare(INSERT_RAW);
    const writeRollups = rollupWriter(db);
    let rollups = new RollupBatch();
    const spans: Spans = new Map();
    let done = 0;
    // The writer connection may not run other statements while iterating, so read in keyset pages.
    const page = db.prepare(
      `SELECT * FROM samples_v1 WHERE (session, seq) > (?, ?) ORDER BY session, seq LIMIT ${MIGRATE_CHUNK_ROWS}`,
    );
    let after: [number, number] = [-1, -1];
    for (;;) {
      const rows = page.all(...after) as V1Row[];
      if (rows.length === 0) break;
      for (const r of rows) {
        const sample = v1Sample(r, hasServerMs);
        const v = rawValues(r.session, sample, codes);
        v[9] = r.flags; // as stored: bits a newer version 1 writer added stay
        addRaw.run(packRaw(v, r.method));
        addRawToBatch(rollups, v, sessionClient.get(r.session)!, codes, r.method, r.target);
        widen(spans, r.session, r.t);
      }
      writeRollups(rollups);
      rollups = new RollupBatch();
      done += rows.length;
      const last = rows[rows.length - 1]!;
      after = [last.session, last.seq];
      log(progressLine(step, done, total));
    }
    finishUpgrade(db, 1, ROW_LAYOUT_VERSION, total, spans, "DROP TABLE samples_v1; DROP TABLE sessions_v1;");
  })();
  log(`upgraded database schema ${step}`);
}

/** Each session's oldest and newest t, gathered while its rows are copied. */
type Spans = Map<number, { lo: number; hi: number }>;

function widen(spans: Spans, session: number, t: number): void {
  const span = spans.get(session);
  if (span === undefined) spans.set(session, { lo: t, hi: t });
  else if (t < span.lo) span.lo = t;
  else if (t > span.hi) span.hi = t;
}

/**
 * The end of an upgrade's transaction: every sample copied (or the whole
 * transaction rolls back), each session's span of t written, the old tables
 * dropped, the version it reached set.
 */
function finishUpgrade(
  db: Database.Database,
  from: number,
  to: number,
  total: number,
  spans: Spans,
  dropOld: string,
): void {
  const copied = (db.prepare("SELECT count(*) AS n FROM raw_samples").get() as { n: number }).n;
  if (copied !== total)
    throw new Error(`upgrade copied ${copied} of ${total} samples; database left at version ${from}`);
  const setSpan = db.prepare("UPDATE sessions SET first_t = ?, last_t = ? WHERE id = ?");
  for (const [id, { lo, hi }] of spans) setSpan.run(lo, hi, id);
  db.exec(dropOld);
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(to));
}

/**
 * Version 2 → 3: the raw rows are copied into the time-keyed table (packed,
 * as version 5 keeps them), and each session's first and last t are
 * gathered in the same pass. Rollups are unchanged.
 */
function migrateV2(db: Database.Database, log: (line: string) => void): void {
  const total = (db.prepare("SELECT count(*) AS n FROM raw_samples").get() as { n: number }).n;
  log(`upgrading database schema 2 → 3: ${total} samples`);
  db.transaction(() => {
    const sessionCols = columnsOf(db, "sessions");
    // The view names raw_samples: dropped here, DDL makes it again over the new table.
    db.exec("DROP VIEW IF EXISTS samples; ALTER TABLE raw_samples RENAME TO raw_samples_v2;");
    if (!sessionCols.has("first_t")) db.exec("ALTER TABLE sessions ADD COLUMN first_t INTEGER");
    if (!sessionCols.has("last_t")) db.exec("ALTER TABLE sessions ADD COLUMN last_t INTEGER");
    db.exec(DDL + RAW_SAMPLES_V6_DDL);
    const spans: Spans = new Map();
    copyPacked(db, "raw_samples_v2 INDEXED BY raw_samples_t", "2 → 3", total, log, (r) => widen(spans, r[0]!, r[2]!));
    finishUpgrade(db, 2, 3, total, spans, "DROP TABLE raw_samples_v2;");
  })();
  log("upgraded database schema 2 → 3");
}

/**
 * Copies the raw rows of an older layout's table (one column per field,
 * RAW_COLUMNS) into raw_samples, packed, in time order (read through the
 * source's t order, so every page of the new table is appended to and left
 * full), with a progress line per page of rows.
 */
function copyPacked(
  db: Database.Database,
  source: string,
  step: string,
  total: number,
  log: (line: string) => void,
  visit?: (row: (number | null)[]) => void,
): void {
  const methods = new Map(
    (db.prepare("SELECT id, method FROM series").all() as { id: number; method: string }[]).map((s) => [
      s.id,
      s.method,
    ]),
  );
  const page = db.prepare(
    `SELECT ${RAW_COLUMNS} FROM ${source} WHERE t >= ? AND (t, session, seq) > (?, ?, ?) ORDER BY t, session, seq LIMIT ${MIGRATE_CHUNK_ROWS}`,
  );
  const add = db.prepare(INSERT_RAW);
  let after: [number, number, number] = [Number.MIN_SAFE_INTEGER, -1, -1];
  let done = 0;
  for (;;) {
    const rows = page.raw(true).all(after[0], ...after) as (number | null)[][];
    if (rows.length === 0) break;
    for (const r of rows) {
      add.run(packRaw(r, methods.get(r[3]!) ?? ""));
      visit?.(r);
    }
    done += rows.length;
    const last = rows[rows.length - 1]!;
    after = [last[2]!, last[0]!, last[1]!];
    log(progressLine(step, done, total));
  }
}

/**
 * Version 3 → 4: the total level's rows, from the day rollups (a few rows
 * per day, series, client and class: quick even for a year).
 */
function addTotals(db: Database.Database, log: (line: string) => void): void {
  const days = db.prepare(DAY_ROLLUPS_SQL).all() as DayRollupRow[];
  log(`upgrading database schema 3 → ${TOTALS_SINCE_VERSION}: running totals from ${days.length} day rollups`);
  db.transaction(() => {
    rollupWriter(db)(totalsFromDays(days));
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(
      String(TOTALS_SINCE_VERSION),
    );
  })();
  log(`upgraded database schema 3 → ${TOTALS_SINCE_VERSION}`);
}

/**
 * Version 4 → 5: the raw rows copied into the packed layout (raw-layout.ts).
 */
function packRawSamples(db: Database.Database, log: (line: string) => void): void {
  const total = (db.prepare("SELECT count(*) AS n FROM raw_samples").get() as { n: number }).n;
  log(`upgrading database schema 4 → 5: ${total} samples`);
  db.transaction(() => {
    db.exec("DROP VIEW IF EXISTS samples; ALTER TABLE raw_samples RENAME TO raw_samples_v4;");
    db.exec(DDL + RAW_SAMPLES_V6_DDL);
    copyPacked(db, "raw_samples_v4", "4 → 5", total, log);
    // Sessions already hold their spans (version 3 added them): none to write.
    finishUpgrade(db, 4, 5, total, new Map(), "DROP TABLE raw_samples_v4;");
  })();
  log("upgraded database schema 4 → 5");
}

/** A v1 row as the wire sample it was stored from (flags are copied as stored, apart). */
function v1Sample(r: V1Row, hasServerMs: boolean): Sample & { serverMs?: number } {
  const s: Sample & { serverMs?: number } = {
    seq: r.seq,
    t: r.t,
    method: r.method,
    target: r.target,
    ms: r.ms,
    outcome: r.outcome,
  };
  if (r.scheduled_t !== null) s.scheduledT = r.scheduled_t;
  if (r.late_ms !== null) s.lateMs = r.late_ms;
  if (r.hidden_ms !== null) s.hiddenMs = r.hidden_ms;
  // Version 1 reasons are free text written before the vocabulary: kept verbatim (read back as stored).
  if (r.reason !== null) s.reason = r.reason as Sample["reason"];
  if (r.winner !== null) s.winner = r.winner;
  if (r.other_ms !== null) s.otherMs = r.other_ms;
  if (r.other_outcome !== null) s.otherOutcome = r.other_outcome;
  if (r.minrtt !== null) s.minrtt = r.minrtt;
  if (r.server_lag_ms !== null) s.serverLagMs = r.server_lag_ms;
  if (hasServerMs && r.server_ms !== null && r.server_ms !== undefined) s.serverMs = r.server_ms;
  return s;
}
