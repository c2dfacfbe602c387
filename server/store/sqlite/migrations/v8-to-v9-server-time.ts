// Version 8 → 9: rollups.srv, a histogram of the server's own handler time
// (Server-Timing, the WebSocket's served note) of each rollup's ok probes,
// which the change finder sets a probe's moves against (docs/changes.md).
// Rows written before have none: nothing to convert, the change finder says
// "server time not measured" there.
import type Database from "better-sqlite3";
import { columnsOf, setVersion, type SqliteStep, type Upgrade } from "./step.js";

function addServerTime(db: Database.Database, u: Upgrade): void {
  // A file whose version was set back (a downgrade, a test) may have the column already: nothing to say then.
  const adding = !columnsOf(db, "rollups").has("srv");
  if (adding) u.log("upgrading database schema 8 → 9: rollups keep the server's handler time from now on");
  db.transaction(() => {
    if (adding) db.exec("ALTER TABLE rollups ADD COLUMN srv BLOB");
    setVersion(db, 9);
  })();
}

export const v8ToV9: SqliteStep = { from: 8, to: 9, run: addServerTime };
