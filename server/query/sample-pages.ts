// Reads the samples a filter selects in pages of bounded size, ordered by
// (t, session, seq), each page a fresh keyset-seek SELECT: nothing holds a
// statement or a read snapshot open between pages, so an export of a month
// can wait on a slow client (backpressure) while ingest keeps committing, and
// memory stays at one page whatever the range.
import Database from "better-sqlite3";
import { sampleWhere, type SampleFilter } from "../store/sample-filter.js";
import type { SqlParam } from "../store/read-pool.js";
import type { Store } from "../store/store.js";
import { unpackSample } from "../store/raw-layout.js";
import type { PackedRow } from "../store/raw-block.js";
import { bucketRange, rowMatcher, rowsOfBlock, type RowContext, type StoredBlock } from "../store/raw-rows.js";
import { BEST2_LEGS, OUTCOMES } from "../../shared/methods.js";
import { msOf } from "./cells.js";

/** Rows per page: ~200 kB of CSV, a few ms of SQLite work between yields to the event loop. */
export const PAGE_ROWS_DEFAULT = 2000;

/** The `samples` view's columns every reader here selects, in RawSampleRow's order. */
const SAMPLE_COLUMNS_SQL = `samples.t, sessions.client_id, sessions.session_key, samples.seq, samples.method,
  samples.target, samples.ms, samples.outcome, samples.scheduled_t, samples.late_ms, samples.hidden_ms, samples.flags,
  samples.reason, samples.winner, samples.other_ms, samples.other_outcome, samples.minrtt, samples.server_lag_ms,
  samples.server_ms, samples.session`;

/** One row as the `samples` view returns it, columns in SAMPLE_COLUMNS_SQL order. */
export type RawSampleRow = [
  t: number,
  clientId: string,
  sessionId: string,
  seq: number,
  method: string,
  target: string,
  ms: number | null,
  outcome: string,
  scheduledT: number | null,
  lateMs: number | null,
  hiddenMs: number | null,
  flags: number,
  reason: string | null,
  winner: string | null,
  otherMs: number | null,
  otherOutcome: string | null,
  minrtt: number | null,
  serverLagMs: number | null,
  serverMs: number | null,
  sessionRowId: number,
];

export interface PageReader {
  /** Pages of rows in (t, session, seq) order; stop iterating to stop reading. */
  pages(filter: SampleFilter, pageRows?: number): AsyncGenerator<RawSampleRow[]>;
  close(): void;
}

/** One SELECT (SQLite's placeholders) read as rows of arrays. */
export type PageFetch = (sql: string, params: SqlParam[]) => Promise<RawSampleRow[]> | RawSampleRow[];

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The store's page reader: its own connection (see Store.openPageReader). */
export const openPageReader = (store: Store): PageReader => store.openPageReader();

/** Keyset paging over a `samples` view's SELECT (the PostgreSQL store's; version 6's SQLite view in tests). */
export function pageReaderOver(fetch: PageFetch, close: () => void): PageReader {
  return {
    async *pages(filter, pageRows = PAGE_ROWS_DEFAULT) {
      const order = "ORDER BY samples.t, samples.session, samples.seq LIMIT ?";
      const select = (where: string) =>
        `SELECT ${SAMPLE_COLUMNS_SQL} FROM samples JOIN sessions ON sessions.id = samples.session WHERE ${where} ${order}`;
      const first = sampleWhere(filter);
      let rows = await fetch(select(first.sql), [...first.params, pageRows]);
      while (rows.length === pageRows) {
        yield rows;
        const last = rows[rows.length - 1]!;
        // Let echo answers and ingest run between pages.
        await yieldTurn();
        // The next page starts at the last row's time: that bound is what SQLite seeks the
        // t index with (a row-value condition alone would rescan from `from` every page).
        const next = sampleWhere({ ...filter, fromMs: last[0] });
        rows = await fetch(select(`${next.sql} AND (samples.t, samples.session, samples.seq) > (?, ?, ?)`), [
          ...next.params,
          last[0],
          last[19],
          last[3],
          pageRows,
        ]);
      }
      if (rows.length > 0) yield rows;
    },
    close,
  };
}

const nameOf = <T extends string>(names: readonly T[], code: number | null): T | null =>
  code === null ? null : (names[code] ?? null);

/**
 * A reader on its own read-only connection to an SQLite file (the writer's
 * connection for an in-memory store, whose pages then read between writes).
 * Raw samples are in blocks (raw-block.ts): it reads one 5-minute bucket's
 * blocks at a time (a fresh SELECT each, no snapshot held across yields),
 * keeps the rows the filter keeps (rowMatcher, sampleWhere's JavaScript
 * form), sorts them by (t, session, seq) and hands them out in pages, so
 * memory is one bucket's rows whatever the range.
 */
export function openSqlitePageReader(writer: Database.Database): PageReader {
  const file = writer.name;
  const own = file !== ":memory:" && file !== "";
  const db = own ? new Database(file, { readonly: true, fileMustExist: true }) : writer;
  if (own) db.pragma("busy_timeout = 5000");
  const readReason = db.prepare<[number], { text: string }>("SELECT text FROM reasons WHERE id = ?");
  // Reasons are few and never change once written: each is read once.
  const reasons = new Map<number, string | null>();
  const reasonText = (id: number): string | null => {
    let text = reasons.get(id);
    if (text === undefined) reasons.set(id, (text = readReason.get(id)?.text ?? null));
    return text;
  };
  const nextBucket = db.prepare<[number, number], { start: number | null }>(
    "SELECT min(start_ms) AS start FROM raw_blocks WHERE start_ms >= ? AND start_ms <= ?",
  );
  const bucketBlocks = db
    .prepare<[number]>("SELECT start_ms, session, seq0, data FROM raw_blocks WHERE start_ms = ?")
    .raw(true);
  const readSeries = db.prepare<[], { id: number; method: string; target: string }>(
    "SELECT id, method, target FROM series",
  );
  const readSessions = db.prepare<[], { id: number; session_key: string; client_id: string }>(
    "SELECT id, session_key, client_id FROM sessions",
  );
  let series = new Map<number, { method: string; target: string }>();
  let sessions = new Map<number, { session_key: string; client_id: string }>();
  // Series and sessions added while an export runs are read when a row names one.
  const reload = () => {
    series = new Map(readSeries.all().map((s) => [s.id, s]));
    sessions = new Map(readSessions.all().map((s) => [s.id, s]));
  };
  const known = (row: PackedRow) => {
    if (!series.has(row[3]!) || !sessions.has(row[0]!)) reload();
    return series.has(row[3]!) && sessions.has(row[0]!);
  };
  const ctx: RowContext = {
    seriesOf: (id) => series.get(id),
    clientIdOf: (session) => sessions.get(session)?.client_id,
  };
  /** A packed row as version 6's samples view returned it, joined with its session. */
  const viewRow = (r: PackedRow): RawSampleRow => {
    const [session, seq, t, seriesId, status, us, sched, lateUs, hiddenUs, detail, lagUs, serverUs] = r as [
      number,
      number,
      number,
      number,
      number,
      ...(number | null)[],
    ];
    const { method, target } = series.get(seriesId)!;
    const { client_id, session_key } = sessions.get(session)!;
    const u = unpackSample(method, status, sched ?? null, lateUs ?? null, detail ?? null);
    return [
      t,
      client_id,
      session_key,
      seq,
      method,
      target,
      msOf(us ?? null),
      nameOf(OUTCOMES, u.outcome)!,
      u.schedMs === null ? null : t - u.schedMs,
      msOf(lateUs ?? null),
      msOf(hiddenUs ?? null),
      u.flags,
      u.reason === null ? null : reasonText(u.reason),
      nameOf(BEST2_LEGS, u.winner),
      msOf(u.otherUs),
      nameOf(OUTCOMES, u.otherOutcome),
      msOf(u.minrttUs),
      msOf(lagUs ?? null),
      msOf(serverUs ?? null),
      session,
    ];
  };
  return {
    async *pages(filter, pageRows = PAGE_ROWS_DEFAULT) {
      reload();
      const keep = rowMatcher(filter, ctx);
      const fromMs = Math.ceil(filter.fromMs);
      const toMs = Math.floor(filter.toMs);
      let [lo, hi] = bucketRange(fromMs, toMs);
      let page: RawSampleRow[] = [];
      for (;;) {
        const start = nextBucket.get(lo, hi)?.start ?? null;
        if (start === null) break;
        const rows: PackedRow[] = [];
        for (const block of bucketBlocks.all(start) as StoredBlock[])
          rowsOfBlock(block, fromMs, toMs, (r) => {
            if (known(r) && keep(r)) rows.push(r);
          });
        rows.sort((a, b) => a[2]! - b[2]! || a[0]! - b[0]! || a[1]! - b[1]!);
        for (const r of rows) {
          page.push(viewRow(r));
          if (page.length === pageRows) {
            yield page;
            page = [];
          }
        }
        lo = start + 1;
        // Let echo answers and ingest run between buckets.
        await yieldTurn();
      }
      if (page.length > 0) yield page;
    },
    close() {
      if (own) db.close();
    },
  };
}
