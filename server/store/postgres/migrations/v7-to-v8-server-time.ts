// Version 7 → 8: rollups.srv, a histogram of the server's own handler time
// of each rollup's ok probes (SQLite's version 10). Rows written before have none.
import type { PgStep } from "./step.js";

export const v7ToV8: PgStep = {
  from: 7,
  to: 8,
  async run(tx, log) {
    log("tailprobe: upgrading the PostgreSQL schema 7 → 8: rollups keep the server's handler time from now on");
    await tx`ALTER TABLE rollups ADD COLUMN IF NOT EXISTS srv bytea`;
  },
};
