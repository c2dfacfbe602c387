// Version 4 → 5: raw rows folded into the packed layout (../raw-layout.ts).
import type Database from "better-sqlite3";
import { DDL } from "../schema.js";
import { copyPacked, finishUpgrade } from "./copy.js";
import { columnsOf, setVersion, type SqliteStep, type Upgrade } from "./step.js";
import { RAW_SAMPLES_V6_DDL } from "./v6-rows.js";

/**
 * Version 4 → 5: the raw rows copied into the packed layout (raw-layout.ts).
 */
function packRawSamples(db: Database.Database, u: Upgrade): void {
  const total = (db.prepare("SELECT count(*) AS n FROM raw_samples").get() as { n: number }).n;
  u.log(`upgrading database schema 4 → 5: ${total} samples`);
  db.transaction(() => {
    db.exec("DROP VIEW IF EXISTS samples; ALTER TABLE raw_samples RENAME TO raw_samples_v4;");
    db.exec(DDL + RAW_SAMPLES_V6_DDL);
    copyPacked(db, "raw_samples_v4", "4 → 5", total, u);
    // Sessions already hold their spans (version 3 added them): none to write.
    finishUpgrade(db, 4, 5, total, new Map(), "DROP TABLE raw_samples_v4;");
  })();
  u.log("upgraded database schema 4 → 5");
}

export const v4ToV5: SqliteStep = {
  from: 4,
  to: 5,
  run(db, u) {
    // By the table, not the version: a version 2 file's upgrade wrote the packed layout already.
    if (columnsOf(db, "raw_samples").has("minrtt_us")) packRawSamples(db, u);
    else {
      db.transaction(() => setVersion(db, 5))();
      u.log("upgraded database schema 4 → 5 (raw samples packed already)");
    }
  },
};
