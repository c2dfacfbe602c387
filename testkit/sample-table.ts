// Tests and benchmarks read stored samples with SQL. Since store version 7
// raw samples are in blocks (server/store/raw-block.ts) that SQL cannot look
// into, so this decodes every block into TEMP tables on the caller's
// connection: `raw_samples` in version 6's packed layout and the `samples`
// view over it, as version 6 had them (a TEMP name shadows the main schema's).
// A snapshot: call it again after more writes.
import type Database from "better-sqlite3";
import { decodeBlock } from "../server/store/raw-block.js";
import { PACKED_RAW_COLUMNS, samplesViewSql } from "../server/store/raw-layout.js";

export function loadSampleTables(db: Database.Database): Database.Database {
  db.exec(`DROP VIEW IF EXISTS temp.samples; DROP TABLE IF EXISTS temp.raw_samples;
CREATE TEMP TABLE raw_samples (session INTEGER, seq INTEGER, t INTEGER, series INTEGER, status INTEGER, us INTEGER, sched INTEGER,
  late_us INTEGER, hidden_us INTEGER, detail INTEGER, lag_us INTEGER, server_us INTEGER, PRIMARY KEY (t, session, seq)) WITHOUT ROWID;`);
  db.exec(samplesViewSql().replace("CREATE VIEW IF NOT EXISTS samples", "CREATE TEMP VIEW samples"));
  const add = db.prepare(`INSERT INTO temp.raw_samples (${PACKED_RAW_COLUMNS}) VALUES (${PACKED_RAW_COLUMNS.split(",").map(() => "?").join(", ")})`);
  const blocks = db.prepare("SELECT start_ms, session, seq0, data FROM main.raw_blocks").all() as { start_ms: number; session: number; seq0: number; data: Uint8Array }[];
  db.transaction(() => {
    for (const b of blocks) for (const row of decodeBlock({ startMs: b.start_ms, session: b.session, seq0: b.seq0 }, b.data)) add.run(row);
  })();
  return db;
}
