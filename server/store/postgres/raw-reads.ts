// RawReads (../raw-rows.ts) on PostgreSQL, whose raw_samples keeps a row per
// sample with a column per field: plain SQL over the table and the samples
// view, through the pool's paced cursor.
import { edgeReader } from "../raw-layout.js";
import type { ReadPool } from "../read-pool.js";
import type { RawReads } from "../raw-rows.js";
import { sampleWhere } from "../sample-filter.js";

export function postgresRawReads(pool: Omit<ReadPool, "raw">): RawReads {
  return {
    async estimateRows(fromMs, toMs, limit, _pace) {
      const rows = await pool.all<{ n: number | string }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM raw_samples WHERE t >= ? AND t <= ? LIMIT ${limit + 1}) AS edge`,
        [Math.ceil(fromMs), Math.floor(toMs)],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async firstT(fromMs, toMs) {
      const rows = await pool.all<{ first: number | string | null }>(
        "SELECT min(t) AS first FROM raw_samples WHERE t >= ? AND t <= ?",
        [Math.ceil(fromMs), Math.floor(toMs)],
      );
      const first = rows[0]?.first ?? null;
      return first === null ? null : Number(first);
    },
    async edgeRows(fromMs, toMs, client, methodOf, onRow, pace) {
      const edge = edgeReader("columns", methodOf);
      // The same SQL version 6's SQLite store ran ("+session" keeps a planner on the t index).
      const clientCond = client === null ? "" : " AND +session IN (SELECT id FROM sessions WHERE client = ?)";
      await pool.scan(
        `SELECT ${edge.columns} FROM raw_samples WHERE t >= ? AND t < ?${clientCond}`,
        client === null ? [fromMs, toMs] : [fromMs, toMs, client],
        (row) => onRow(edge.decode(row)),
        pace,
      );
    },
    async scanSamples(filter, columns, onRow, pace) {
      const where = sampleWhere(filter);
      await pool.scan(`SELECT ${columns.join(", ")} FROM samples WHERE ${where.sql}`, where.params, onRow, pace);
    },
  };
}
