// --db chooses the store: a postgres:// or postgresql:// URL opens the
// PostgreSQL store (any number of servers on one database), anything else is
// an SQLite file (the embedded default).
import { isPostgresUrl } from "./postgres/dialect.js";
import { openPostgresStore } from "./postgres/store.js";
import { openStoreThreaded, type Store, type StoreOptions } from "./store.js";

export async function openStoreFor(db: string, opts: StoreOptions = {}): Promise<Store> {
  return isPostgresUrl(db) ? openPostgresStore(db, opts) : openStoreThreaded(db, opts);
}
