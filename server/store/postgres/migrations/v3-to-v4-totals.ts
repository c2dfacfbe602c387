// Version 3 → 4: running totals in the rollups (../../running-totals.ts),
// once from the day rollups. The lock keeps another server's ingest from
// adding a day row between the read and the commit.
import { TOTAL_LEVEL } from "../../rollup-class.js";
import { DAY_ROLLUPS_SQL, totalsFromDays, type DayRollupRow } from "../../running-totals.js";
import { mergeRollups } from "../rollup-writer.js";
import type { PgStep } from "./step.js";

export const v3ToV4: PgStep = {
  from: 3,
  to: 4,
  async run(tx, log) {
    await tx`LOCK TABLE rollups IN SHARE ROW EXCLUSIVE MODE`;
    await tx`DELETE FROM rollups WHERE level = ${TOTAL_LEVEL}`;
    const days = (await tx.unsafe(DAY_ROLLUPS_SQL)) as unknown as DayRollupRow[];
    log(`tailprobe: upgrading the PostgreSQL schema 3 → 4: running totals from ${days.length} day rollups`);
    await mergeRollups(tx, totalsFromDays(days), false);
  },
};
