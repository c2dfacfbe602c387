// Version 4 → 5: rollup histograms are written in shared/rollup.ts' compact
// form from then on, which a version 4 tailprobe would misread (it refuses a
// newer database). Stored ones are read as they are: nothing to convert.
import type { PgStep } from "./step.js";

export const v4ToV5: PgStep = {
  from: 4,
  to: 5,
  async run(_tx, log) {
    log("tailprobe: upgrading the PostgreSQL schema 4 → 5: rollups written compact from now on");
  },
};
