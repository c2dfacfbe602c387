// Version 6 → 7: rollups.srv, a histogram of the server's own handler time
// of each rollup's ok probes (SQLite's version 9). Rows written before have none.
import type { PgStep } from "./step.js";

export const v6ToV7: PgStep = {
  from: 6,
  to: 7,
  async run(tx, log) {
    log("tailprobe: upgrading the PostgreSQL schema 6 → 7: rollups keep the server's handler time from now on");
    await tx`ALTER TABLE rollups ADD COLUMN IF NOT EXISTS srv bytea`;
  },
};
