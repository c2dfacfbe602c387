// Forgetting one client on PostgreSQL (admin API), as ../sqlite/admin.ts does
// for SQLite: its samples, sessions and per-client rollups go, and every
// aggregate rollup row it touched is rebuilt from the clients that remain
// (min and max do not subtract). The rollups table is locked against
// ingest meanwhile (other servers' batches wait): a rebuilt aggregate must
// not miss a batch merged between reading and writing it. Rare and admin-only.
import type postgres from "postgres";
import type { DeletedClient } from "../store.js";
import {
  ANY_CLASS,
  ANY_CLIENT,
  emptyCell,
  type RollupCell,
  type StoredCell,
  mergeStored,
  blobOf,
} from "../rollup-batch.js";

const arrayLiteral = (xs: readonly number[]) => `{${xs.join(",")}}`;
const bytea = (r: RollupCell["lat"]) => {
  const b = blobOf(r);
  return b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
};

export async function deleteClientPostgres(sql: postgres.Sql, clientId: string): Promise<DeletedClient> {
  return sql.begin(async (tx) => {
    await tx`LOCK TABLE rollups IN SHARE ROW EXCLUSIVE MODE`;
    const codes = (await tx`SELECT DISTINCT client FROM sessions WHERE client_id = ${clientId}`).map(
      (r) => r.client as number,
    );
    const removed =
      await tx`DELETE FROM raw_samples WHERE session IN (SELECT id FROM sessions WHERE client_id = ${clientId})`;
    const touched =
      await tx`SELECT DISTINCT level, start_ms, series FROM rollups WHERE client = ANY(${arrayLiteral(codes)}::integer[])`;
    const aggregates = new Map<string, RollupCell>();
    for (const r of touched)
      aggregates.set(
        `${r.level}|${r.start_ms}|${r.series}`,
        emptyCell(r.level as number, r.start_ms as number, r.series as number, ANY_CLIENT, ANY_CLASS),
      );
    await tx`DELETE FROM rollups WHERE client = ANY(${arrayLiteral(codes)}::integer[])`;
    await tx`DELETE FROM stress_runs WHERE session IN (SELECT id FROM sessions WHERE client_id = ${clientId})`;
    const sessions = await tx`DELETE FROM sessions WHERE client_id = ${clientId}`;
    await tx`DELETE FROM clients WHERE id = ANY(${arrayLiteral(codes)}::integer[])`;
    if (aggregates.size > 0) {
      const levels = touched.map((r) => r.level as number);
      const starts = touched.map((r) => r.start_ms as number);
      const series = touched.map((r) => r.series as number);
      const rest = await tx`
        SELECT r.level, r.start_ms, r.series, r.failures, r.skipped, r.lat, r.tmo, r.wins_ws, r.wins_jsonp, r.margin, r.srv
        FROM rollups r JOIN unnest(${arrayLiteral(levels)}::smallint[], ${arrayLiteral(starts)}::bigint[], ${arrayLiteral(series)}::integer[]) AS k (level, start_ms, series)
          ON r.level = k.level AND r.start_ms = k.start_ms AND r.series = k.series
        WHERE r.client <> ${ANY_CLIENT}`;
      for (const r of rest) {
        const cell = aggregates.get(`${r.level}|${r.start_ms}|${r.series}`);
        if (cell !== undefined) mergeStored(cell, r as unknown as StoredCell);
      }
      for (const c of aggregates.values()) {
        const key = [c.level, ANY_CLIENT, ANY_CLASS, c.startMs, c.series];
        if (c.failures + c.skipped + c.lat.count + c.tmo.count === 0)
          await tx`DELETE FROM rollups WHERE level = ${key[0]!} AND client = ${key[1]!} AND class = ${key[2]!} AND start_ms = ${key[3]!} AND series = ${key[4]!}`;
        else
          await tx`UPDATE rollups SET failures = ${c.failures}, skipped = ${c.skipped}, lat = ${bytea(c.lat)}, tmo = ${bytea(c.tmo)},
                   wins_ws = ${c.winsWs}, wins_jsonp = ${c.winsJsonp}, margin = ${bytea(c.margin)}, srv = ${bytea(c.srv)}
                   WHERE level = ${key[0]!} AND client = ${key[1]!} AND class = ${key[2]!} AND start_ms = ${key[3]!} AND series = ${key[4]!}`;
      }
    }
    return { samples: removed.count, sessions: sessions.count };
  }) as Promise<DeletedClient>;
}
