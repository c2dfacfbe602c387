// Version 5 → 6: rollup histograms are written in shared/rollup.ts' compact
// form from then on, which a version 5 tailprobe would misread (it refuses a
// newer file). Stored ones are read as they are: nothing to convert.
import { setVersion, type SqliteStep } from "./step.js";

export const v5ToV6: SqliteStep = {
  from: 5,
  to: 6,
  run(db, u) {
    db.transaction(() => setVersion(db, 6))();
    u.log("upgraded database schema 5 → 6: rollups are written compact from now on (nothing to convert)");
  },
};
