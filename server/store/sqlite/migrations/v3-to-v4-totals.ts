// Version 3 → 4: running totals in the rollups (../../running-totals.ts).
import type Database from "better-sqlite3";
import { DAY_ROLLUPS_SQL, TOTALS_SINCE_VERSION, totalsFromDays, type DayRollupRow } from "../../running-totals.js";
import { rollupWriter } from "../rollup-writer.js";
import { setVersion, type SqliteStep, type Upgrade } from "./step.js";

/**
 * Version 3 → 4: the total level's rows, from the day rollups (a few rows
 * per day, series, client and class: quick even for a year).
 */
function addTotals(db: Database.Database, u: Upgrade): void {
  const days = db.prepare(DAY_ROLLUPS_SQL).all() as DayRollupRow[];
  u.log(`upgrading database schema 3 → ${TOTALS_SINCE_VERSION}: running totals from ${days.length} day rollups`);
  db.transaction(() => {
    rollupWriter(db, false)(totalsFromDays(days));
    setVersion(db, TOTALS_SINCE_VERSION);
  })();
  u.log(`upgraded database schema 3 → ${TOTALS_SINCE_VERSION}`);
}

export const v3ToV4: SqliteStep = { from: 3, to: TOTALS_SINCE_VERSION, run: addTotals };
