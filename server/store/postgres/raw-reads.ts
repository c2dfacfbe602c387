// RawReads (../raw-reads.ts) on PostgreSQL, whose raw_samples keeps a row per
// sample with a column per field (the logical row, ../logical-row.ts): plain
// SQL over the table and the samples view, through the pool's paced cursor.
import type { EdgeRow, RawReads } from "../raw-reads.js";
import type { SqlReads } from "../read-pool.js";
import { sampleWhere } from "../sample-filter.js";

/** raw_samples' columns an EdgeRow is read from, in edgeRowOf's order. */
const EDGE_COLUMNS = "t, series, outcome, us, flags, late_us, winner, other_us, minrtt_us, load";

function edgeRowOf(row: unknown[]): EdgeRow {
  const [t, series, outcome, us, flags, lateUs, winner, otherUs, minrttUs, load] = row as [
    number,
    number,
    number,
    number | null,
    number,
    number | null,
    number | null,
    number | null,
    number | null,
    number | null,
  ];
  return { t, series, outcome, us, flags, lateUs, winner, otherUs, minrttUs, load };
}

export function postgresRawReads(pool: SqlReads): RawReads {
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
    async edgeRows(fromMs, toMs, client, _methodOf, onRow, pace) {
      // The same SQL version 6's SQLite store ran ("+session" keeps a planner on the t index).
      const clientCond = client === null ? "" : " AND +session IN (SELECT id FROM sessions WHERE client = ?)";
      await pool.scan(
        `SELECT ${EDGE_COLUMNS} FROM raw_samples WHERE t >= ? AND t < ?${clientCond}`,
        client === null ? [fromMs, toMs] : [fromMs, toMs, client],
        (row) => onRow(edgeRowOf(row)),
        pace,
      );
    },
    async scanSamples(filter, columns, onRow, pace) {
      const where = sampleWhere(filter);
      await pool.scan(`SELECT ${columns.join(", ")} FROM samples WHERE ${where.sql}`, where.params, onRow, pace);
    },
  };
}
