// Schema version 4 added the rollups' total level (rollup-class.ts
// TOTAL_LEVEL): running totals of every sample, kept by the ingest from then
// on. A database written before it gets them once, from its day rollups,
// which hold every sample still within --rollup-days (the upgrades of both
// stores run this).
import { ANY_CLASS, ANY_CLIENT, RollupBatch, type StoredCell } from "./rollup-batch.js";
import { LEVEL_MS, TOTAL_LEVEL } from "./rollup-class.js";

const DAY_LEVEL = LEVEL_MS.length - 1;

/** The schema version that added the running totals: a database of an older one gets them from its day rollups. */
export const TOTALS_SINCE_VERSION = 4;

/** The rows totalsFromDays reads: every client's day rollups (the aggregate rows are rebuilt from them). */
export const DAY_ROLLUPS_SQL = `SELECT series, client, class, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin FROM rollups WHERE level = ${DAY_LEVEL} AND client <> ${ANY_CLIENT}`;

export type DayRollupRow = StoredCell & { series: number; client: number; class: number };

/**
 * The total-level cells of the day rows: each (series, client, class) summed
 * over its days, and the aggregate per series summed over those, not read
 * from the aggregate day rows: a prune stopped between the two (retention
 * deletes the aggregate rows first) would leave them disagreeing, and
 * deleting a client rebuilds the aggregate from the per-client totals.
 */
export function totalsFromDays(rows: Iterable<DayRollupRow>): RollupBatch {
  const totals = new RollupBatch();
  for (const r of rows) {
    totals.addStored(TOTAL_LEVEL, 0, r.series, r.client, r.class, r);
    totals.addStored(TOTAL_LEVEL, 0, r.series, ANY_CLIENT, ANY_CLASS, r);
  }
  return totals;
}
