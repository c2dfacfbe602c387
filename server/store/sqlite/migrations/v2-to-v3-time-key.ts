// Version 2 → 3: raw samples keyed by (t, session, seq) instead of by session
// with a t index, copied in time order straight into the packed layout.
import type Database from "better-sqlite3";
import { DDL } from "../schema.js";
import { copyPacked, finishUpgrade, type Spans, widen } from "./copy.js";
import { columnsOf, type SqliteStep, type Upgrade } from "./step.js";
import { RAW_SAMPLES_V6_DDL } from "./v6-rows.js";

/**
 * Version 2 → 3: the raw rows are copied into the time-keyed table (packed,
 * as version 5 keeps them), and each session's first and last t are
 * gathered in the same pass. Rollups are unchanged.
 */
function migrateV2(db: Database.Database, u: Upgrade): void {
  const total = (db.prepare("SELECT count(*) AS n FROM raw_samples").get() as { n: number }).n;
  u.log(`upgrading database schema 2 → 3: ${total} samples`);
  db.transaction(() => {
    const sessionCols = columnsOf(db, "sessions");
    // The view names raw_samples: dropped here, DDL makes it again over the new table.
    db.exec("DROP VIEW IF EXISTS samples; ALTER TABLE raw_samples RENAME TO raw_samples_v2;");
    if (!sessionCols.has("first_t")) db.exec("ALTER TABLE sessions ADD COLUMN first_t INTEGER");
    if (!sessionCols.has("last_t")) db.exec("ALTER TABLE sessions ADD COLUMN last_t INTEGER");
    db.exec(DDL + RAW_SAMPLES_V6_DDL);
    const spans: Spans = new Map();
    copyPacked(db, "raw_samples_v2 INDEXED BY raw_samples_t", "2 → 3", total, u, (r) => widen(spans, r[0]!, r[2]!));
    finishUpgrade(db, 2, 3, total, spans, "DROP TABLE raw_samples_v2;");
  })();
  u.log("upgraded database schema 2 → 3");
}

export const v2ToV3: SqliteStep = { from: 2, to: 3, run: migrateV2 };
