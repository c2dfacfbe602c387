// The SQLite connection behind a server's store, for tests and benchmarks
// that read or load rows directly: they run on the SQLite store only.
import type Database from "better-sqlite3";
import type { Store } from "../server/store/store.js";

export function sqliteDb(store: Store): Database.Database {
  if (!("db" in store)) throw new Error(`this check reads SQLite directly; the store is ${store.kind}`);
  return (store as Store & { db: Database.Database }).db;
}
