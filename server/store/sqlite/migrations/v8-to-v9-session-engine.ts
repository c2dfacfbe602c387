// Version 8 → 9: each session keeps the engine its page ran in (chromium,
// gecko, webkit; docs/engines.md), beside timer_resolution_us. Older sessions
// did not say: NULL.
import { columnsOf, setVersion, type SqliteStep } from "./step.js";

export const ENGINE_STEP_LINE = "upgrading database schema 8 → 9: the engine of each session's page";

export const v8ToV9: SqliteStep = {
  from: 8,
  to: 9,
  run(db, u) {
    db.transaction(() => {
      // A file marked older whose sessions already have the column gains nothing, and says nothing.
      if (!columnsOf(db, "sessions").has("engine")) {
        u.log(ENGINE_STEP_LINE);
        db.exec("ALTER TABLE sessions ADD COLUMN engine TEXT");
      }
      setVersion(db, 9);
    })();
    u.log("upgraded database schema 8 → 9");
  },
};
