// Merging a batch's rollup cells (../rollup-batch.ts) into SQLite's rollups
// table: read, merge, write back per cell, on the writer's connection inside
// the caller's transaction.
import type Database from "better-sqlite3";
import { mergedRow, type RollupBatch, type StoredCell } from "../rollup-batch.js";

/** Merges a batch's rollups into the table (read, merge, write back per cell). */
export function rollupWriter(db: Database.Database): (batch: RollupBatch) => void {
  const get = db.prepare<[number, number, number, number, number], StoredCell>(
    "SELECT failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin FROM rollups WHERE level = ? AND start_ms = ? AND series = ? AND client = ? AND class = ?",
  );
  const put = db.prepare(
    "INSERT OR REPLACE INTO rollups (level, start_ms, series, client, class, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  return (batch) => {
    for (const c of batch.cells.values()) {
      const m = mergedRow(c, get.get(c.level, c.startMs, c.series, c.client, c.cls));
      put.run(
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
      );
    }
  };
}
