// RawReads (../raw-reads.ts) over SQLite's raw_blocks: the one place its
// readers get raw rows by time. SQL cannot look inside a block, and a
// better-sqlite3 virtual table cannot read its own connection (see
// docs/architecture.md), so blocks are decoded here (raw-block.ts) and
// filtered in JavaScript (row-matcher.ts, sampleWhere's verdict).
import { BEST2_LEGS, OUTCOMES } from "../../../shared/methods.js";
import { toMsOrNull } from "../logical-row.js";
import type { Pace } from "../pace.js";
import type { RawReads, ViewColumn } from "../raw-reads.js";
import type { SqlReads } from "../read-pool.js";
import type { SampleFilter } from "../sample-filter.js";
import { blockStartMs, decodeBlock, type PackedRow } from "./raw-block.js";
import { edgeRowOf, unpackSample } from "./raw-layout.js";
import { rowMatcher, type RowContext } from "./row-matcher.js";

/** A raw_blocks row as the readers select it (BLOCKS_IN_RANGE_SQL's columns, in order). */
export type StoredBlock = [startMs: number, session: number, seq0: number, data: Uint8Array];

/**
 * The blocks that may hold samples with fromMs ≤ t ≤ toMs, in key order
 * (bucket, session, first seq): parameters fromMs, toMs as bucketRange gives them.
 */
export const BLOCKS_IN_RANGE_SQL =
  "SELECT start_ms, session, seq0, data FROM raw_blocks WHERE start_ms >= ? AND start_ms <= ?";

/** BLOCKS_IN_RANGE_SQL's parameters for the inclusive range [fromMs, toMs]. */
export const bucketRange = (fromMs: number, toMs: number): [number, number] => [
  blockStartMs(Math.ceil(fromMs)),
  Math.floor(toMs),
];

/** The rows of a stored block whose t lies in [fromMs, toMs], passed to onRow in seq order. */
export function rowsOfBlock(block: StoredBlock, fromMs: number, toMs: number, onRow: (row: PackedRow) => void): void {
  const [startMs, session, seq0, data] = block;
  for (const row of decodeBlock({ startMs, session, seq0 }, data)) {
    const t = row[2]!;
    if (t >= fromMs && t <= toMs) onRow(row);
  }
}

/** Blocks decoded between two looks at the clock: a block holds up to a batch (1,000 samples). */
const BLOCKS_PER_CHECK = 4;

/** Every raw row with fromMs ≤ t ≤ toMs, block by block (in bucket order; within a bucket by session, then seq). */
export function scanRows(
  pool: SqlReads,
  fromMs: number,
  toMs: number,
  onRow: (row: PackedRow) => void,
  pace: Pace,
): Promise<void> {
  return pool.scan(
    BLOCKS_IN_RANGE_SQL,
    bucketRange(fromMs, toMs),
    (block) => rowsOfBlock(block as StoredBlock, fromMs, toMs, onRow),
    pace,
    BLOCKS_PER_CHECK,
  );
}

/** The series and session tables as a RowContext, read once per query (with the code of the run `filter` names). */
export async function rowContext(
  pool: SqlReads,
  filter?: SampleFilter,
): Promise<RowContext & { clientCodeOf(session: number): number | undefined }> {
  const series = new Map(
    (await pool.all<{ id: number; method: string; target: string }>("SELECT id, method, target FROM series", [])).map(
      (s) => [s.id, s],
    ),
  );
  const sessions = new Map(
    (
      await pool.all<{ id: number; client_id: string; client: number }>(
        "SELECT id, client_id, client FROM sessions",
        [],
      )
    ).map((s) => [s.id, s]),
  );
  const run =
    filter?.stressRun === undefined
      ? undefined
      : ((await pool.all<{ id: number }>("SELECT id FROM stress_runs WHERE run_key = ?", [filter.stressRun]))[0]?.id ??
        null);
  return {
    seriesOf: (id) => series.get(id),
    clientIdOf: (session) => sessions.get(session)?.client_id,
    clientCodeOf: (session) => sessions.get(session)?.client,
    stressRunCode: run,
  };
}

/**
 * Raw samples with fromMs ≤ t ≤ toMs, counted from the blocks' n up to past
 * `limit`: whole buckets, so a partial bucket at either end counts whole (an
 * estimate, as the planner wants it: is the raw path cheap here?).
 */
export async function estimateRows(
  pool: SqlReads,
  fromMs: number,
  toMs: number,
  limit: number,
  pace: Pace,
): Promise<number> {
  // Stops at the block that passes the limit: a month of sparse blocks would otherwise be read whole.
  let n = 0;
  await pool.scan(
    "SELECT n FROM raw_blocks WHERE start_ms >= ? AND start_ms <= ?",
    bucketRange(fromMs, toMs),
    (row) => {
      n += row[0] as number;
      return n <= limit ? undefined : false;
    },
    pace,
  );
  return n;
}

/** The smallest stored t with fromMs ≤ t ≤ toMs, or null: bucket by bucket from the first block at or after fromMs' bucket. */
export async function firstT(pool: SqlReads, fromMs: number, toMs: number): Promise<number | null> {
  let [lo, hi] = bucketRange(fromMs, toMs);
  for (;;) {
    const next = await pool.all<{ start: number | null }>(
      "SELECT min(start_ms) AS start FROM raw_blocks WHERE start_ms >= ? AND start_ms <= ?",
      [lo, hi],
    );
    const start = next[0]?.start ?? null;
    if (start === null) return null;
    let first: number | null = null;
    const blocks = await pool.all<{ start_ms: number; session: number; seq0: number; data: Uint8Array }>(
      "SELECT start_ms, session, seq0, data FROM raw_blocks WHERE start_ms = ?",
      [start],
    );
    for (const b of blocks)
      rowsOfBlock([b.start_ms, b.session, b.seq0, b.data], fromMs, toMs, (r) => {
        if (first === null || r[2]! < first) first = r[2]!;
      });
    if (first !== null) return first;
    lo = start + 1;
  }
}

/** A packed row's view columns, in `columns`' order, as the samples view computes them. */
function viewOf(columns: readonly ViewColumn[], ctx: RowContext): (row: PackedRow) => unknown[] {
  return (row) => {
    const [, , t, seriesId, status, us, sched, lateUs, , detail] = row;
    const series = ctx.seriesOf(seriesId!)!;
    const u = unpackSample(series.method, status!, sched ?? null, lateUs ?? null, detail ?? null);
    return columns.map((c) => {
      switch (c) {
        case "t":
          return t;
        case "method":
          return series.method;
        case "target":
          return series.target;
        case "outcome":
          return OUTCOMES[u.outcome] ?? null;
        case "ms":
          return toMsOrNull(us ?? null);
        case "minrtt":
          return toMsOrNull(u.minrttUs);
        case "winner":
          return u.winner === null ? null : (BEST2_LEGS[u.winner] ?? null);
        case "other_ms":
          return toMsOrNull(u.otherUs);
      }
    });
  };
}

/** The rows sampleWhere(filter) keeps, as the samples view's `columns`: what `SELECT columns FROM samples WHERE …` returned in version 6. */
export async function scanSamples(
  pool: SqlReads,
  filter: SampleFilter,
  columns: readonly ViewColumn[],
  onRow: (row: unknown[]) => void,
  pace: Pace,
): Promise<void> {
  const ctx = await rowContext(pool, filter);
  const keep = rowMatcher(filter, ctx);
  const view = viewOf(columns, ctx);
  await scanRows(
    pool,
    Math.ceil(filter.fromMs),
    Math.floor(filter.toMs),
    (row) => {
      if (keep(row)) onRow(view(row));
    },
    pace,
  );
}

/** RawReads over raw_blocks. */
export function blockReads(pool: SqlReads): RawReads {
  return {
    estimateRows: (fromMs, toMs, limit, pace) => estimateRows(pool, fromMs, toMs, limit, pace),
    firstT: (fromMs, toMs) => firstT(pool, fromMs, toMs),
    async edgeRows(fromMs, toMs, client, methodOf, onRow, pace) {
      const ctx = client === null ? null : await rowContext(pool);

      // [fromMs, toMs): t is an integer.
      await scanRows(
        pool,
        fromMs,
        Math.ceil(toMs) - 1,
        (row) => {
          if (ctx !== null && ctx.clientCodeOf(row[0]!) !== client) return;
          onRow(edgeRowOf(methodOf(row[3]!) ?? "", row));
        },
        pace,
      );
    },
    scanSamples: (filter, columns, onRow, pace) => scanSamples(pool, filter, columns, onRow, pace),
  };
}
