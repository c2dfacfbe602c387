// The public id a server shows for a clientId, read from its database's key
// the way the server derives it, so tests can filter by client.
import Database from "better-sqlite3";
import { createClientDirectory } from "../server/privacy/public-ids.js";
import { loadPublicIdKey } from "../server/store/sqlite/meta.js";
import type { Store } from "../server/store/store.js";

export function publicIdOf(db: Database.Database | string | Store, clientId: string): string {
  if (typeof db === "object" && "publicIdKey" in db)
    return createClientDirectory(db.publicIdKey, () => []).publicId(clientId);
  const conn = typeof db === "string" ? new Database(db, { readonly: true, fileMustExist: true }) : db;
  try {
    return createClientDirectory(loadPublicIdKey(conn), () => []).publicId(clientId);
  } finally {
    if (typeof db === "string") conn.close();
  }
}
