// The read port (../read-pool.ts) on SQLite: read-only connections for
// queries, each scan sliced (../pace.ts) so it never stalls the echo endpoints.
//
// Why a second connection: a query over a day of samples takes seconds. Run
// synchronously it blocks the event loop, so every /echo answered meanwhile
// measures the query, not the network. Iterated in short slices on the writer
// connection it would break ingest instead: better-sqlite3 refuses other
// statements on a connection while an iterator is open. A read-only
// connection under WAL sees a consistent snapshot for the whole SELECT while
// ingest keeps committing on the writer.
import Database from "better-sqlite3";
import { type ReadPool, READERS_MAX, type SqlParam } from "../read-pool.js";
import { blockReads } from "./raw-reads.js";

/** Rows between two looks at the clock: checking it on every row would show in the profile. */
const ROWS_PER_CHECK = 256;

/**
 * Readers on the database file. For ":memory:" there is no file to share, so
 * queries read the writer connection and finish each SELECT within one turn
 * (tests and throwaway stores only; a real server always has a file).
 */
export function openReadPool(dbPath: string, writer: Database.Database): ReadPool {
  const shared = dbPath === ":memory:";
  const idle: Database.Database[] = [];
  const waiting: { resolve: (db: Database.Database) => void; reject: (err: Error) => void }[] = [];
  let opened = 0;
  let closed = false;

  function openReader(): Database.Database {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    // Readers run on the event loop too: never wait on a lock (a query then fails, 503).
    db.pragma("busy_timeout = 0");
    opened++;
    return db;
  }

  async function acquire(): Promise<Database.Database> {
    if (closed) throw new Error("store is closed");
    if (shared) return writer;
    const db = idle.pop();
    if (db !== undefined) return db;
    if (opened < READERS_MAX) return openReader();
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  }

  function release(db: Database.Database): void {
    if (shared) return;
    if (closed) {
      db.close();
      return;
    }
    const next = waiting.shift();
    if (next !== undefined) next.resolve(db);
    else idle.push(db);
  }

  const pool: Omit<ReadPool, "raw"> = {
    async scan(sql, params, onRow, pace, rowsPerCheck = ROWS_PER_CHECK) {
      const db = await acquire();
      try {
        pace.checkAborted();
        const it = db
          .prepare(sql)
          .raw(true)
          .iterate(...params) as IterableIterator<unknown[]>;
        try {
          for (;;) {
            for (let i = 0; i < rowsPerCheck; i++) {
              const r = it.next();
              if (r.done === true) return;
              if (onRow(r.value) === false) return;
            }
            if (!shared && pace.spent()) await pace.yieldNow();
          }
        } finally {
          it.return?.();
        }
      } finally {
        release(db);
      }
    },
    async all<T>(sql: string, params: readonly SqlParam[]) {
      const db = await acquire();
      try {
        return db.prepare(sql).all(...params) as T[];
      } finally {
        release(db);
      }
    },
    close() {
      closed = true;
      for (const db of idle.splice(0)) db.close();
      for (const w of waiting.splice(0)) w.reject(new Error("store is closed"));
    },
  };
  return { ...pool, raw: blockReads(pool) };
}
