// The page reader (../page-reader.ts) on PostgreSQL: keyset paging over the
// `samples` view, each page a fresh SELECT ordered by (t, session, seq) that
// starts after the last row of the page before, with that row's t as the t
// index's lower bound (a row-value condition alone would rescan from `from`
// every page). Nothing is held open between pages.
import { PAGE_ROWS_DEFAULT, type PageReader, type RawSampleRow } from "../page-reader.js";
import { yieldTurn } from "../pace.js";
import type postgres from "postgres";
import type { SqlParam } from "../read-pool.js";
import { sampleWhere } from "../sample-filter.js";
import { toPostgresPlaceholders } from "./dialect.js";
import { LOAD_NAME_SQL } from "./schema.js";

/** The `samples` view's columns every page selects, in RawSampleRow's order, up to the session. */
const SAMPLE_COLUMNS_SQL = `samples.t, sessions.client_id, sessions.session_key, samples.seq, samples.method,
  samples.target, samples.ms, samples.outcome, samples.scheduled_t, samples.late_ms, samples.hidden_ms, samples.flags,
  samples.reason, samples.winner, samples.other_ms, samples.other_outcome, samples.minrtt, samples.server_lag_ms,
  samples.server_ms, samples.session, CAST(sessions.timer_resolution_us AS double precision), sessions.engine`;
/**
 * RawSampleRow's last two, the stress test's phase and run key, over
 * PostgreSQL's view (the key by a subquery: a join would make sampleWhere's
 * bare column names ambiguous). Version 6's SQLite view, which the block
 * reader's tests read, has neither: its callers give "NULL, NULL".
 */
export const STRESS_COLUMNS_SQL = `${LOAD_NAME_SQL("samples.load")},
  (SELECT run_key FROM stress_runs WHERE stress_runs.id = samples.stress_run)`;

/** One SELECT (SQLite's placeholders, translated by the caller) read as rows of arrays. */
export type PageFetch = (sql: string, params: SqlParam[]) => Promise<RawSampleRow[]> | RawSampleRow[];

/**
 * Keyset paging over a `samples` view's SELECT: PostgreSQL's, and in tests
 * SQLite's version 6 view, which the block reader is held to.
 */
export function pageReaderOver(
  fetch: PageFetch,
  close: () => void,
  stressColumnsSql: string = STRESS_COLUMNS_SQL,
): PageReader {
  return {
    async *pages(filter, pageRows = PAGE_ROWS_DEFAULT) {
      const order = "ORDER BY samples.t, samples.session, samples.seq LIMIT ?";
      const select = (where: string) =>
        `SELECT ${SAMPLE_COLUMNS_SQL}, ${stressColumnsSql} FROM samples JOIN sessions ON sessions.id = samples.session WHERE ${where} ${order}`;
      const first = sampleWhere(filter);
      let rows = await fetch(select(first.sql), [...first.params, pageRows]);
      while (rows.length === pageRows) {
        yield rows;
        const last = rows[rows.length - 1]!;
        // Let echo answers and ingest run between pages.
        await yieldTurn();
        // The next page starts at the last row's time: the t index's bound.
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

/** The store's page reader: the read connections' pool, each page's SELECT under `guarded` (faults become StorageError). */
export function postgresPageReader(sql: postgres.Sql, guarded: <T>(run: () => Promise<T>) => Promise<T>): PageReader {
  return pageReaderOver(
    (q, params) =>
      guarded(async () => (await sql.unsafe(toPostgresPlaceholders(q), params).values()) as unknown as RawSampleRow[]),
    () => {},
  );
}
