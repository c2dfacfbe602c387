// --db chooses the store: a postgres:// or postgresql:// URL opens the
// PostgreSQL store (any number of servers on one database), anything else is
// an SQLite file (the embedded default). The one file of server/store/'s
// core that knows the engines.
import { isPostgresUrl } from "./postgres/dialect.js";
import { openPostgresStore } from "./postgres/store.js";
import { openStoreThreaded, type SqliteStoreOptions } from "./sqlite/store.js";
import type { Store } from "./store.js";

export async function openStoreFor(db: string, opts: SqliteStoreOptions = {}): Promise<Store> {
  return isPostgresUrl(db) ? openPostgresStore(db, opts) : openStoreThreaded(db, opts);
}
