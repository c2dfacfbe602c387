// Merging rollup cells into PostgreSQL's rollups table inside a transaction:
// the ingest's step (writer.ts) and the upgrade's (migrations/migrate.ts). The
// histograms are encoded JS-side (shared/rollup.ts), so merging means read,
// merge, write back. Two servers may touch the same rollup rows: each
// transaction creates the missing rows and then locks them, both in one fixed
// order (the key's), so concurrent batches wait for each other instead of
// losing an update or deadlocking.
import type postgres from "postgres";
import { mergedRow, type RollupBatch, type RollupCell, type StoredCell } from "../rollup-batch.js";

const KEY = "level, client, class, start_ms, series";

export type Tx = postgres.TransactionSql;

/** A PostgreSQL array literal of integers and NULLs (text: no quoting needed). */
export const arrayLiteral = (xs: readonly (number | string | null)[]) =>
  `{${xs.map((x) => (x === null ? "NULL" : String(x))).join(",")}}`;

const KEY_ARRAYS =
  "unnest($1::smallint[], $2::integer[], $3::smallint[], $4::bigint[], $5::integer[]) AS k (level, client, class, start_ms, series)";
/** Statements of fixed text (prepared once) over one array per column, however many cells a batch touches. */
const CREATE_CELLS = `INSERT INTO rollups (${KEY}) SELECT * FROM ${KEY_ARRAYS} ORDER BY ${KEY} ON CONFLICT DO NOTHING`;
/** The rows locked and read back, and the UPDATE of their merged values, with or without the srv column (version 7 on). */
const lockCells = (
  srv: boolean,
) => `SELECT r.level, r.client, r.class, r.start_ms, r.series, r.failures, r.skipped, r.lat, r.tmo, r.wins_ws, r.wins_jsonp, r.margin${srv ? ", r.srv" : ""}
  FROM rollups r JOIN ${KEY_ARRAYS} USING (${KEY}) ORDER BY r.level, r.client, r.class, r.start_ms, r.series FOR UPDATE OF r`;
// Histograms travel as hex text (decoded here): an array literal of hex needs no quoting.
const writeCells = (
  srv: boolean,
) => `UPDATE rollups r SET failures = v.failures, skipped = v.skipped, lat = decode(v.lat, 'hex'), tmo = decode(v.tmo, 'hex'),
    wins_ws = v.wins_ws, wins_jsonp = v.wins_jsonp, margin = decode(v.margin, 'hex')${srv ? ", srv = decode(v.srv, 'hex')" : ""}
  FROM unnest($1::smallint[], $2::integer[], $3::smallint[], $4::bigint[], $5::integer[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::text[]${srv ? ", $13::text[]" : ""})
    AS v (level, client, class, start_ms, series, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin${srv ? ", srv" : ""})
  WHERE r.level = v.level AND r.client = v.client AND r.class = v.class AND r.start_ms = v.start_ms AND r.series = v.series`;
const LOCK_CELLS = [lockCells(false), lockCells(true)] as const;
const WRITE_CELLS = [writeCells(false), writeCells(true)] as const;

const cellKey = (c: RollupCell): number[] => [c.level, c.client, c.cls, c.startMs, c.series];
const compareKeys = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
};
const hexOf = (b: Uint8Array | null): string | null =>
  b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const columnsOf = <T>(rows: readonly T[][], width: number): T[][] =>
  Array.from({ length: width }, (_, c) => rows.map((r) => r[c]!));

/**
 * Merges a batch's rollup cells into the rollups table inside `tx`.
 * `serverTime`: the table has the srv column (version 7 on); upgrade steps
 * from older versions run before it exists and pass false.
 */
export async function mergeRollups(tx: Tx, batch: RollupBatch, serverTime = true): Promise<void> {
  const srv = serverTime ? 1 : 0;
  const cells = [...batch.cells.values()].sort((a, b) => compareKeys(cellKey(a), cellKey(b)));
  if (cells.length === 0) return;
  const keys = columnsOf(cells.map(cellKey), 5).map(arrayLiteral);
  // Missing rows first (in key order), then every row locked (in key order).
  await tx.unsafe(CREATE_CELLS, keys);
  const stored = await tx.unsafe(LOCK_CELLS[srv], keys);
  const byKey = new Map(
    stored.map((r) => [`${r.level}|${r.client}|${r.class}|${r.start_ms}|${r.series}`, r as unknown as StoredCell]),
  );
  const merged: (number | string | null)[][] = [];
  for (const c of cells) {
    const m = mergedRow(c, byKey.get(`${c.level}|${c.client}|${c.cls}|${c.startMs}|${c.series}`));
    merged.push([
      ...cellKey(c),
      m.failures,
      m.skipped,
      hexOf(m.lat),
      hexOf(m.tmo),
      m.winsWs,
      m.winsJsonp,
      hexOf(m.margin),
      ...(serverTime ? [hexOf(m.srv)] : []),
    ]);
  }
  await tx.unsafe(WRITE_CELLS[srv], columnsOf(merged, serverTime ? 13 : 12).map(arrayLiteral));
}
