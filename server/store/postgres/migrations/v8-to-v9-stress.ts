// Version 8 → 9: raw samples taken during a stress test carry its run and
// phase (../schema.ts raw_samples.stress_run, load; docs/stress.md). Added
// to the partitioned table, whose partitions take them too; NULL for every
// sample stored before. stress_runs is created with every table at open.
import type { PgStep } from "./step.js";

export const v8ToV9: PgStep = {
  from: 8,
  to: 9,
  async run(tx, log) {
    log("tailprobe: upgrading the PostgreSQL schema 8 → 9: samples may carry a stress test's run and phase");
    await tx`ALTER TABLE raw_samples ADD COLUMN IF NOT EXISTS stress_run bigint, ADD COLUMN IF NOT EXISTS load smallint`;
  },
};
