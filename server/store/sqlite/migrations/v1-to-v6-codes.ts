// Version 1 → 6: version 1's tables (text columns, REAL ms, a samples table
// keyed by session) converted in one pass into version 6's: codes, integer
// µs, the packed row table (v6-rows.ts), rollups and running totals built
// from the same rows. Then v6-to-v7-blocks.ts puts the rows into blocks.
import type Database from "better-sqlite3";
import type { Sample } from "../../../../shared/contract/index.js";
import { rawValues, rollupRowOf } from "../../logical-row.js";
import { RollupBatch } from "../../rollup-batch.js";
import { Codes } from "../codes.js";
import { packRaw } from "../raw-layout.js";
import { rollupWriter } from "../rollup-writer.js";
import { DDL } from "../schema.js";
import { finishUpgrade, type Spans, widen } from "./copy.js";
import { progressLine } from "./progress.js";
import { columnsOf, type SqliteStep, type Upgrade } from "./step.js";
import { INSERT_RAW, RAW_SAMPLES_V6_DDL } from "./v6-rows.js";

/** The last version with a row per raw sample: where version 1 leads, before blocks. */
const ROW_LAYOUT_VERSION = 6;

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

function migrateV1(db: Database.Database, u: Upgrade): void {
  const total = (db.prepare("SELECT count(*) AS n FROM samples").get() as { n: number }).n;
  const step = `1 → ${ROW_LAYOUT_VERSION}`;
  u.log(`upgrading database schema ${step}: ${total} samples`);
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
    const writeRollups = rollupWriter(db, false);
    let rollups = new RollupBatch();
    const spans: Spans = new Map();
    let done = 0;
    // The writer connection may not run other statements while iterating, so read in keyset pages.
    const page = db.prepare(`SELECT * FROM samples_v1 WHERE (session, seq) > (?, ?) ORDER BY session, seq LIMIT ?`);
    let after: [number, number] = [-1, -1];
    for (;;) {
      const rows = page.all(...after, u.chunkRows) as V1Row[];
      if (rows.length === 0) break;
      for (const r of rows) {
        const sample = v1Sample(r, hasServerMs);
        const v = rawValues(r.session, sample, codes);
        v[9] = r.flags; // as stored: bits a newer version 1 writer added stay
        addRaw.run(packRaw(v, r.method));
        rollups.add(rollupRowOf(v, sessionClient.get(r.session)!, r.method, r.target, codes));
        widen(spans, r.session, r.t);
      }
      writeRollups(rollups);
      rollups = new RollupBatch();
      done += rows.length;
      const last = rows[rows.length - 1]!;
      after = [last.session, last.seq];
      u.log(progressLine(step, done, total));
    }
    finishUpgrade(db, 1, ROW_LAYOUT_VERSION, total, spans, "DROP TABLE samples_v1; DROP TABLE sessions_v1;");
  })();
  u.log(`upgraded database schema ${step}`);
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

export const v1ToV6: SqliteStep = { from: 1, to: ROW_LAYOUT_VERSION, run: migrateV1 };
