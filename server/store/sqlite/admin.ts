// The destructive operation behind the admin API that retention does not
// cover: forgetting one client. It runs on the writer's connection (the
// writer thread in the server), so the event loop never runs it.
//
// A client's samples also count in the aggregate rollup rows (every client,
// every class). Those cannot be un-merged exactly (min and max do not
// subtract), so each aggregate row the client touched is rebuilt from the
// per-client rows that remain.
import type Database from "better-sqlite3";
import {
  ANY_CLASS,
  ANY_CLIENT,
  blobOf,
  emptyCell,
  mergeStored,
  type RollupCell,
  type StoredCell,
} from "../rollup-batch.js";
import { ALL_CLASSES, LEVEL_COUNT } from "../rollup-class.js";
import type { DeletedClient } from "../store.js";
import { blockStartMs } from "./raw-block.js";

export function deleteClientData(db: Database.Database, clientId: string): DeletedClient {
  const run = db.transaction((): DeletedClient => {
    const codes = (
      db.prepare("SELECT DISTINCT client FROM sessions WHERE client_id = ?").all(clientId) as { client: number }[]
    ).map((r) => r.client);
    // Raw blocks are in time order: walk the client's time span (its sessions' first_t..last_t),
    // block keys only (a row per write, not per sample; the BLOBs are not read).
    const tSpan = db
      .prepare("SELECT min(first_t) AS lo, max(last_t) AS hi FROM sessions WHERE client_id = ?")
      .get(clientId) as { lo: number | null; hi: number | null };
    let samples = 0;
    if (tSpan.lo !== null && tSpan.hi !== null) {
      const deleted = db
        .prepare(
          "DELETE FROM raw_blocks WHERE start_ms BETWEEN ? AND ? AND +session IN (SELECT id FROM sessions WHERE client_id = ?) RETURNING n",
        )
        .all(blockStartMs(tSpan.lo), tSpan.hi, clientId) as { n: number }[];
      samples = deleted.reduce((sum, b) => sum + b.n, 0);
    }
    const aggregates = new Map<string, RollupCell>();
    const span = Array.from({ length: LEVEL_COUNT }, () => ({ fromMs: Infinity, toMs: -Infinity }));
    const touched = db.prepare("SELECT DISTINCT start_ms, series FROM rollups WHERE level = ? AND client = ?");
    for (const code of codes) {
      for (let level = 0; level < LEVEL_COUNT; level++) {
        for (const r of touched.all(level, code) as { start_ms: number; series: number }[]) {
          aggregates.set(
            `${level}|${r.start_ms}|${r.series}`,
            emptyCell(level, r.start_ms, r.series, ANY_CLIENT, ANY_CLASS),
          );
          span[level]!.fromMs = Math.min(span[level]!.fromMs, r.start_ms);
          span[level]!.toMs = Math.max(span[level]!.toMs, r.start_ms);
        }
      }
      db.prepare("DELETE FROM rollups WHERE client = ?").run(code);
    }
    db.prepare("DELETE FROM stress_runs WHERE session IN (SELECT id FROM sessions WHERE client_id = ?)").run(clientId);
    const sessions = db.prepare("DELETE FROM sessions WHERE client_id = ?").run(clientId).changes;
    for (const code of codes) db.prepare("DELETE FROM clients WHERE id = ?").run(code);
    // Rebuild: one key range per (level, remaining client, class), the rollups' key order.
    const remaining = (db.prepare("SELECT id FROM clients").all() as { id: number }[]).map((r) => r.id);
    const rows = db.prepare(
      "SELECT start_ms, series, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin, srv FROM rollups WHERE level = ? AND client = ? AND class = ? AND start_ms BETWEEN ? AND ?",
    );
    for (let level = 0; level < LEVEL_COUNT; level++) {
      const { fromMs, toMs } = span[level]!;
      if (fromMs > toMs) continue;
      for (const client of remaining)
        for (const cls of ALL_CLASSES)
          for (const r of rows.iterate(level, client, cls, fromMs, toMs) as Iterable<
            StoredCell & { start_ms: number; series: number }
          >) {
            const cell = aggregates.get(`${level}|${r.start_ms}|${r.series}`);
            if (cell !== undefined) mergeStored(cell, r);
          }
    }
    const drop = db.prepare(
      "DELETE FROM rollups WHERE level = ? AND client = ? AND class = ? AND start_ms = ? AND series = ?",
    );
    const put = db.prepare(
      "INSERT OR REPLACE INTO rollups (level, start_ms, series, client, class, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin, srv) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    for (const c of aggregates.values()) {
      if (c.failures + c.skipped + c.lat.count + c.tmo.count === 0)
        drop.run(c.level, ANY_CLIENT, ANY_CLASS, c.startMs, c.series);
      else
        put.run(
          c.level,
          c.startMs,
          c.series,
          ANY_CLIENT,
          ANY_CLASS,
          c.failures,
          c.skipped,
          blobOf(c.lat),
          blobOf(c.tmo),
          c.winsWs,
          c.winsJsonp,
          blobOf(c.margin),
          blobOf(c.srv),
        );
    }
    return { samples, sessions };
  });
  return run.immediate();
}
