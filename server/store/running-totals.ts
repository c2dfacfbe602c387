// Schema version 4 added the rollups' total level (rollup-class.ts
// TOTAL_LEVEL): running totals of every sample, kept by the ingest from then
// on. A database written before it gets them once, from its day rollups,
// which hold every sample still within --rollup-days (the upgrades of both
// stores run this).
import { RollupBatch, type StoredCell } from "./rollup-batch.js";
import { LEVEL_MS, TOTAL_LEVEL } from "./rollup-class.js";

const DAY_LEVEL = LEVEL_MS.length - 1;

/** The rows totalsFromDays reads: every day rollup, aggregate rows included. */
export const DAY_ROLLUPS_SQL = `SELECT series, client, class, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin FROM rollups WHERE level = ${DAY_LEVEL}`;

export type DayRollupRow = StoredCell & { series: number; client: number; class: number };

/** The total-level cells of the day rows: each (series, client, class), and the aggregate rows, summed over their days. */
export function totalsFromDays(rows: Iterable<DayRollupRow>): RollupBatch {
  const totals = new RollupBatch();
  for (const r of rows) totals.addStored(TOTAL_LEVEL, 0, r.series, r.client, r.class, r);
  return totals;
}
