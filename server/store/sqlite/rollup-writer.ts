// Merging a batch's rollup cells (../rollup-batch.ts) into SQLite's rollups
// table: read, merge, write back per cell, on the writer's connection inside
// the caller's transaction.
import type Database from "better-sqlite3";
import { mergedRow, type RollupBatch, type StoredCell } from "../rollup-batch.js";

/**
 * Merges a batch's rollups into the table (read, merge, write back per cell).
 * `serverTime`: the table has the srv column (version 9 on); upgrade steps
 * from older versions run before it exists and pass false.
 */
export function rollupWriter(db: Database.Database, serverTime = true): (batch: RollupBatch) => void {
  const srv = serverTime ? ", srv" : "";
  const get = db.prepare<[number, number, number, number, number], StoredCell>(
    `SELECT failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin${srv} FROM rollups WHERE level = ? AND start_ms = ? AND series = ? AND client = ? AND class = ?`,
  );
  const put = db.prepare(
    `INSERT OR REPLACE INTO rollups (level, start_ms, series, client, class, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin${srv}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${serverTime ? ", ?" : ""})`,
  );
  return (batch) => {
    for (const c of batch.cells.values()) {
      const m = mergedRow(c, get.get(c.level, c.startMs, c.series, c.client, c.cls));
      const values = [
        c.level,
        c.startMs,
        c.series,
        c.client,
        c.cls,
        m.failures,
        m.skipped,
        m.lat,
        m.tmo,
        m.winsWs,
        m.winsJsonp,
        m.margin,
      ];
      if (serverTime) values.push(m.srv);
      put.run(...values);
    }
  };
}
