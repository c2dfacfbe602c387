// The read port (../read-pool.ts) on PostgreSQL: the same SQL,
// placeholders translated, rows streamed through a cursor so a long scan
// yields to the event loop between chunks as the SQLite pool does.
import type postgres from "postgres";
import type { ReadPool, SqlParam, SqlReads } from "../read-pool.js";
import { toPostgresPlaceholders } from "./dialect.js";
import { faultCode, PG_UNREACHABLE } from "./errors.js";
import { postgresRawReads } from "./raw-reads.js";

/** Rows fetched per cursor round trip. */
export const CURSOR_ROWS = 2000;
/** The wait before a read that met a dead connection is tried once more (ms). */
export const READ_RETRY_MS = 50;

/**
 * Runs a read, and once more after READ_RETRY_MS if it failed for want of a
 * connection: after PostgreSQL restarts, a pooled connection that died with
 * it fails its first query while a new one would answer (a CI run saw
 * /api/stats answer 503 right after ingest had resumed). Reads are
 * idempotent; an outage still fails, one short wait later.
 */
async function onceMore<T>(read: () => Promise<T>, mayRetry: () => boolean = () => true): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (faultCode(err) !== PG_UNREACHABLE || !mayRetry()) throw err;
    await new Promise((r) => setTimeout(r, READ_RETRY_MS));
    return read();
  }
}

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
      let delivered = false;
      try {
        await onceMore(
          () =>
            sql
              .unsafe(translate(q), params as SqlParam[] as postgres.ParameterOrJSON<never>[])
              .values()
              .cursor(CURSOR_ROWS, async (rows) => {
                delivered ||= rows.length > 0;
                for (const r of rows) if (onRow(r as unknown[]) === false) return sql.CLOSE;
                try {
                  await pace.maybeYield();
                } catch (err) {
                  abandoned = err;
                  return sql.CLOSE;
                }
                return undefined;
              }),
          // Rows already handed on cannot be taken back: only a scan that delivered none is retried.
          () => !delivered,
        );
      } catch (err) {
        throw onError(err);
      }
      if (abandoned !== null) throw abandoned;
    },
    async all<T>(q: string, params: readonly SqlParam[]) {
      check();
      return onceMore(
        async () =>
          (await sql.unsafe(translate(q), params as SqlParam[] as postgres.ParameterOrJSON<never>[])) as unknown as T[],
      ).catch((err: unknown) => {
        throw onError(err);
      });
    },
    close() {
      closed = true;
    },
  };
  return { ...pool, raw: postgresRawReads(pool) };
}
