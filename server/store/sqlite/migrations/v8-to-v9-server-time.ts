// Version 8 → 9: rollups.srv, a histogram of the server's own handler time
// (Server-Timing, the WebSocket's served note) of each rollup's ok probes,
// which the change finder sets a probe's moves against (docs/changes.md).
// Rows written before have none: nothing to convert, the change finder says
// "server time not measured" there.
import type Database from "better-sqlite3";
import { columnsOf, setVersion, type SqliteStep } from "./step.js";

function addServerTime(db: Database.Database, log: (line: string) => void): void {
  log("upgrading database schema 8 → 9: rollups keep the server's handler time from now on");
  db.transaction(() => {
    if (!columnsOf(db, "rollups").has("srv")) db.exec("ALTER TABLE rollups ADD COLUMN srv BLOB");
    setVersion(db, 9);
  })();
}

export const v8ToV9: SqliteStep = { from: 8, to: 9, run: addServerTime };
