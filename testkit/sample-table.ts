// Tests and benchmarks read stored samples with SQL. Since store version 7
// raw samples are in blocks (server/store/sqlite/raw-block.ts) that SQL cannot look
// into, so this decodes every block into TEMP tables on the caller's
// connection: `raw_samples` in version 6's packed layout and the `samples`
// view over it, as version 6 had them (a TEMP name shadows the main schema's).
// A snapshot: call it again after more writes.
import type Database from "better-sqlite3";
import { decodeBlock } from "../server/store/sqlite/raw-block.js";
import { RAW_SAMPLES_V6_DDL } from "../server/store/sqlite/migrations/v6-rows.js";
import { PACKED_RAW_COLUMNS, PACKED_STRESS_INDEX } from "../server/store/sqlite/raw-layout.js";

export function loadSampleTables(db: Database.Database): Database.Database {
  db.exec("DROP VIEW IF EXISTS temp.samples; DROP TABLE IF EXISTS temp.raw_samples;");
  // Version 6's own DDL, made TEMP (a TEMP view may only name TEMP tables, so both).
  db.exec(
    RAW_SAMPLES_V6_DDL.replace("CREATE TABLE IF NOT EXISTS raw_samples", "CREATE TEMP TABLE raw_samples").replace(
      "CREATE VIEW IF NOT EXISTS samples",
      "CREATE TEMP VIEW samples",
    ),
  );
  // A plain INSERT: a sample stored twice in the blocks fails here rather than being read once.
  const add = db.prepare(
    `INSERT INTO temp.raw_samples (${PACKED_RAW_COLUMNS}) VALUES (${PACKED_RAW_COLUMNS.split(",")
      .map(() => "?")
      .join(", ")})`,
  );
  const blocks = db.prepare("SELECT start_ms, session, seq0, data FROM main.raw_blocks").all() as {
    start_ms: number;
    session: number;
    seq0: number;
    data: Uint8Array;
  }[];
  db.transaction(() => {
    // Version 6's columns: a block's stress field (version 8) has no place in them.
    for (const b of blocks)
      for (const row of decodeBlock({ startMs: b.start_ms, session: b.session, seq0: b.seq0 }, b.data))
        add.run(row.slice(0, PACKED_STRESS_INDEX));
  })();
  return db;
}
