// Raw samples read back from their blocks (raw-block.ts): the one place
// SQLite's readers get raw rows by time, and the JavaScript form of
// sampleWhere that filters them. SQL cannot look inside a block, and a
// better-sqlite3 virtual table cannot read its own connection (see
// docs/architecture.md), so the readers that filtered raw rows in SQL
// (raw-scan, races, sample pages) filter decoded rows here instead; the
// PostgreSQL store keeps a row per sample and sampleWhere's SQL.
import { BEST2_LEGS, OUTCOMES } from "../../shared/methods.js";
import { blockStartMs, decodeBlock, type PackedRow } from "./raw-block.js";
import type { Pace } from "./read-pool.js";
import { edgeReader, unpackSample, type EdgeRow } from "./raw-layout.js";
import { storedMethodOf, type SampleFilter } from "./sample-filter.js";
import { FLAG, FLAG_KNOWN_SHIFT } from "./schema.js";

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

/** What a filter needs to know of a row beyond the row: its series' method and target, its session's client. */
export interface RowContext {
  seriesOf(id: number): { method: string; target: string } | undefined;
  clientIdOf(session: number): string | undefined;
}

const VISIBLE_BITS = FLAG.visibleAtSend | FLAG.visibleAtReply;

/**
 * sampleWhere (sample-filter.ts) as a predicate on packed rows: the same
 * rows, condition by condition (tests/unit/raw-rows.test.ts holds the two
 * to one verdict over generated rows and filters).
 */
export function rowMatcher(f: SampleFilter, ctx: RowContext): (row: PackedRow) => boolean {
  const fromMs = Math.ceil(f.fromMs);
  const toMs = Math.floor(f.toMs);
  const methods = f.methods !== undefined && f.methods.length > 0 ? new Set(f.methods.map(storedMethodOf)) : null;
  const targets = f.targets !== undefined && f.targets.length > 0 ? new Set(f.targets) : null;
  const exclude = (f.exclude ?? []).map((w) => [Math.ceil(w.fromMs), Math.floor(w.toMs)] as const);
  return (row) => {
    const [session, , t, seriesId, status, , sched, lateUs, , detail] = row;
    if (t! < fromMs || t! > toMs) return false;
    if (f.clientId !== undefined && ctx.clientIdOf(session!) !== f.clientId) return false;
    const series = ctx.seriesOf(seriesId!);
    if (series === undefined) return false;
    if (methods !== null && !methods.has(series.method)) return false;
    if (targets !== null && !targets.has(series.target)) return false;
    if (f.visibleOnly === true || f.reportInFlight !== undefined) {
      const { flags } = unpackSample(series.method, status!, sched ?? null, lateUs ?? null, detail ?? null);
      if (f.visibleOnly === true && ((flags >> FLAG_KNOWN_SHIFT) & VISIBLE_BITS & ~flags) !== 0) return false;
      if (f.reportInFlight !== undefined && ((flags & FLAG.reportInFlight) !== 0) !== f.reportInFlight) return false;
    }
    // late_ms in SQL is late_us / 1000.0: the same comparison in µs, exact.
    if (f.maxLateMs !== undefined && lateUs !== null && lateUs !== undefined && lateUs / 1000 > f.maxLateMs)
      return false;
    for (const [lo, hi] of exclude) if (t! >= lo && t! <= hi) return false;
    return true;
  };
}

/** What the SQLite read pool lends the block readers: a paced scan of one SELECT, and small SELECTs. */
export interface BlockPool {
  scan(
    sql: string,
    params: readonly (string | number | null)[],
    onRow: (row: unknown[]) => void | false,
    pace: Pace,
    rowsPerCheck?: number,
  ): Promise<void>;
  all<T>(sql: string, params: readonly (string | number | null)[]): Promise<T[]>;
}

/** Blocks decoded between two looks at the clock: a block holds up to a batch (1,000 samples). */
const BLOCKS_PER_CHECK = 4;

/** Every raw row with fromMs ≤ t ≤ toMs, block by block (in bucket order; within a bucket by session, then seq). */
export function scanRows(
  pool: BlockPool,
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

/** The series and session tables as a RowContext, read once per query. */
export async function rowContext(
  pool: BlockPool,
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
  return {
    seriesOf: (id) => series.get(id),
    clientIdOf: (session) => sessions.get(session)?.client_id,
    clientCodeOf: (session) => sessions.get(session)?.client,
  };
}

/**
 * Raw samples with fromMs ≤ t ≤ toMs, counted from the blocks' n up to past
 * `limit`: whole buckets, so a partial bucket at either end counts whole (an
 * estimate, as the planner wants it: is the raw path cheap here?).
 */
export async function estimateRows(
  pool: BlockPool,
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
export async function firstT(pool: BlockPool, fromMs: number, toMs: number): Promise<number | null> {
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

/** The samples view's columns scanSamples can hand back. */
export type ViewColumn = "t" | "method" | "target" | "outcome" | "ms" | "minrtt" | "winner" | "other_ms";

const msOfUs = (us: number | null): number | null => (us === null ? null : us / 1000);

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
          return msOfUs(us ?? null);
        case "minrtt":
          return msOfUs(u.minrttUs);
        case "winner":
          return u.winner === null ? null : (BEST2_LEGS[u.winner] ?? null);
        case "other_ms":
          return msOfUs(u.otherUs);
      }
    });
  };
}

/** The rows sampleWhere(filter) keeps, as the samples view's `columns`: what `SELECT columns FROM samples WHERE …` returned in version 6. */
export async function scanSamples(
  pool: BlockPool,
  filter: SampleFilter,
  columns: readonly ViewColumn[],
  onRow: (row: unknown[]) => void,
  pace: Pace,
): Promise<void> {
  const ctx = await rowContext(pool);
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

/** How a store reads its raw samples: blocks here, a row per sample on PostgreSQL (postgres/raw-reads.ts). */
export interface RawReads {
  /** Raw samples with fromMs ≤ t ≤ toMs, estimated, counted no further than past `limit`. */
  estimateRows(fromMs: number, toMs: number, limit: number, pace: Pace): Promise<number>;
  /** The smallest stored t with fromMs ≤ t ≤ toMs, or null. */
  firstT(fromMs: number, toMs: number): Promise<number | null>;
  /** The raw samples with fromMs ≤ t < toMs (of client code `client`, or every client), as the rollup reader folds them. */
  edgeRows(
    fromMs: number,
    toMs: number,
    client: number | null,
    methodOf: (series: number) => string | undefined,
    onRow: (row: EdgeRow) => void,
    pace: Pace,
  ): Promise<void>;
  /** The rows sampleWhere(filter) keeps, as the samples view's `columns`. */
  scanSamples(
    filter: SampleFilter,
    columns: readonly ViewColumn[],
    onRow: (row: unknown[]) => void,
    pace: Pace,
  ): Promise<void>;
}

/** RawReads over raw_blocks. */
export function blockReads(pool: BlockPool): RawReads {
  return {
    estimateRows: (fromMs, toMs, limit, pace) => estimateRows(pool, fromMs, toMs, limit, pace),
    firstT: (fromMs, toMs) => firstT(pool, fromMs, toMs),
    async edgeRows(fromMs, toMs, client, methodOf, onRow, pace) {
      const ctx = client === null ? null : await rowContext(pool);
      const decode = edgeReader("packed", methodOf).decode;
      // [fromMs, toMs): t is an integer.
      await scanRows(
        pool,
        fromMs,
        Math.ceil(toMs) - 1,
        (row) => {
          if (ctx !== null && ctx.clientCodeOf(row[0]!) !== client) return;
          onRow(decode([row[2], row[3], row[4], row[5], row[7], row[9]]));
        },
        pace,
      );
    },
    scanSamples: (filter, columns, onRow, pace) => scanSamples(pool, filter, columns, onRow, pace),
  };
}
