// Version 2 → 3: each session keeps the t of its oldest and newest sample
// (first_t, last_t), which /api/clients and the timer-resolution note read
// instead of the samples: the columns, backfilled once from raw_samples.
import type { PgStep } from "./step.js";

export const v2ToV3: PgStep = {
  from: 2,
  to: 3,
  async run(tx, log) {
    log("tailprobe: upgrading the PostgreSQL schema 2 → 3: each session's first and last sample time");
    await tx`ALTER TABLE sessions ADD COLUMN IF NOT EXISTS first_t bigint`;
    await tx`ALTER TABLE sessions ADD COLUMN IF NOT EXISTS last_t bigint`;
    await tx`UPDATE sessions s SET first_t = r.lo, last_t = r.hi
      FROM (SELECT session, min(t) AS lo, max(t) AS hi FROM raw_samples GROUP BY session) r
      WHERE r.session = s.id AND s.first_t IS NULL`;
  },
};
