// The read port (../read-pool.ts) on PostgreSQL: the same SQL,
// placeholders translated, rows streamed through a cursor so a long scan
// yields to the event loop between chunks as the SQLite pool does.
import type postgres from "postgres";
import type { ReadPool, SqlParam, SqlReads } from "../read-pool.js";
import { toPostgresPlaceholders } from "./dialect.js";
import { postgresRawReads } from "./raw-reads.js";

/** Rows fetched per cursor round trip. */
export const CURSOR_ROWS = 2000;

export function postgresReadPool(sql: postgres.Sql, onError: (err: unknown) => unknown): ReadPool {
  const text = new Map<string, string>();
  const translate = (q: string) => {
    let t = text.get(q);
    if (t === undefined) {
      t = toPostgresPlaceholders(q);
      // Generated SQL varies with the filter (IN lists): keep the cache bounded.
      if (text.size > 1000) text.clear();
      text.set(q, t);
    }
    return t;
  };
  let closed = false;
  const check = () => {
    if (closed) throw new Error("store is closed");
  };
  const pool: SqlReads & { close(): void } = {
    async scan(q, params, onRow, pace) {
      check();
      pace.checkAborted();
      // An abandoned query closes its cursor (CLOSE) rather than throwing
      // from the callback: a throw there leaves the connection's row count
      // unreset in postgres 3.4, and the next query on it gets rows out of place.
      let abandoned: unknown = null;
      try {
        await sql
          .unsafe(translate(q), params as SqlParam[] as postgres.ParameterOrJSON<never>[])
          .values()
          .cursor(CURSOR_ROWS, async (rows) => {
            for (const r of rows) if (onRow(r as unknown[]) === false) return sql.CLOSE;
            try {
              await pace.maybeYield();
            } catch (err) {
              abandoned = err;
              return sql.CLOSE;
            }
            return undefined;
          });
      } catch (err) {
        throw onError(err);
      }
      if (abandoned !== null) throw abandoned;
    },
    async all<T>(q: string, params: readonly SqlParam[]) {
      check();
      try {
        return (await sql.unsafe(
          translate(q),
          params as SqlParam[] as postgres.ParameterOrJSON<never>[],
        )) as unknown as T[];
      } catch (err) {
        throw onError(err);
      }
    },
    close() {
      closed = true;
    },
  };
  return { ...pool, raw: postgresRawReads(pool) };
}
