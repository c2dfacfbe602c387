// Version 9 → 10: rollups.srv, a histogram of the server's own handler time
// (Server-Timing, the WebSocket's served note) of each rollup's ok probes,
// which the change finder sets a probe's moves against (docs/changes.md).
// Rows written before have none: nothing to convert, the change finder says
// "server time not measured" there.
import type Database from "better-sqlite3";
import { columnsOf, setVersion, type SqliteStep, type Upgrade } from "./step.js";

function addServerTime(db: Database.Database, u: Upgrade): void {
  u.log("upgrading database schema 9 → 10: rollups keep the server's handler time from now on");
  db.transaction(() => {
    // A file whose version was set back (a downgrade, a test) may have the column already.
    if (!columnsOf(db, "rollups").has("srv")) db.exec("ALTER TABLE rollups ADD COLUMN srv BLOB");
    setVersion(db, 10);
  })();
  u.log("upgraded database schema 9 → 10");
}

export const v9ToV10: SqliteStep = { from: 9, to: 10, run: addServerTime };
