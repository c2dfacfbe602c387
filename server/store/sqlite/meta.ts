// What the privacy layer needs from the database: the key public client ids
// are derived with (kept in meta, so ids stay stable across restarts) and
// the clientIds already stored. Synchronous: called once at start-up.
import { randomBytes } from "node:crypto";
import type Database from "better-sqlite3";

const PUBLIC_ID_KEY = "public_id_key";
/** Bytes of the HMAC key (256 bits). */
const PUBLIC_ID_KEY_BYTES = 32;

export function loadPublicIdKey(db: Database.Database): Buffer {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(PUBLIC_ID_KEY) as { value: string } | undefined;
  if (row !== undefined) return Buffer.from(row.value, "hex");
  const key = randomBytes(PUBLIC_ID_KEY_BYTES);
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)").run(PUBLIC_ID_KEY, key.toString("hex"));
  return loadPublicIdKey(db);
}

export function storedClientIds(db: Database.Database): string[] {
  return (db.prepare("SELECT DISTINCT client_id FROM sessions").all() as { client_id: string }[]).map(
    (r) => r.client_id,
  );
}
