// Version 10 → 11: samples taken during a stress test carry its run and phase
// (raw-block.ts NULLABLE "stress"; docs/stress.md), which a version 10
// tailprobe would refuse as a block it cannot read. Blocks written before
// have no such field and read as they are; stress_runs is created with every
// table at open (../schema.ts). Nothing to convert.
import { type SqliteStep, setVersion } from "./step.js";

export const v10ToV11: SqliteStep = {
  from: 10,
  to: 11,
  run(db, u) {
    db.transaction(() => setVersion(db, 11))();
    u.log("upgraded database schema 10 → 11");
  },
};
