// Version 6 → 7: each session keeps the engine its page ran in (chromium,
// gecko, webkit; docs/engines.md), beside timer_resolution_us. Older sessions
// did not say: NULL.
import type { PgStep } from "./step.js";

export const v6ToV7: PgStep = {
  from: 6,
  to: 7,
  async run(tx, log) {
    log("tailprobe: upgrading the PostgreSQL schema 6 → 7: the engine of each session's page");
    await tx`ALTER TABLE sessions ADD COLUMN IF NOT EXISTS engine text`;
  },
};
