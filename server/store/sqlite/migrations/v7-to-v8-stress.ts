// Version 7 → 8: samples taken during a stress test carry its run and phase
// (raw-block.ts NULLABLE "stress"; docs/stress.md), which a version 7
// tailprobe would refuse as a block it cannot read. Blocks written before
// have no such field and read as they are; stress_runs is created with every
// table at open (../schema.ts). Nothing to convert.
import { type SqliteStep, setVersion } from "./step.js";

export const v7ToV8: SqliteStep = {
  from: 7,
  to: 8,
  run(db) {
    db.transaction(() => setVersion(db, 8))();
  },
};
