// A page's clientId is its secret: with it anyone could post samples as that
// client or claim its baselines. Pages and the public API name a client by a
// public id instead, a keyed hash of its clientId that cannot be turned back.
import { createHmac } from "node:crypto";

/** Characters of a public id: 16 base64url characters are 96 bits, no collisions among any realistic number of clients. */
export const PUBLIC_ID_CHARS = 16;

export interface ClientDirectory {
  publicId(clientId: string): string;
  /** The clientId behind a public id, if that client has reported here. */
  clientIdOf(publicId: string): string | undefined;
  /** A client reported (idempotent). */
  add(clientId: string): void;
  remove(clientId: string): void;
}

/**
 * An unknown public id re-reads the stored clientIds at most this often (ms):
 * clients written by another process (a loader script) are found, and random
 * ids cannot make the server scan its sessions on every request.
 */
export const DIRECTORY_REFRESH_MS = 1000;

/** @param stored reads every stored clientId (at start, and on a miss at most once per DIRECTORY_REFRESH_MS). */
export function createClientDirectory(key: Buffer, stored: () => Iterable<string>): ClientDirectory {
  const hash = (clientId: string) =>
    createHmac("sha256", key).update(clientId).digest("base64url").slice(0, PUBLIC_ID_CHARS);
  const byPublicId = new Map<string, string>();
  const toPublic = new Map<string, string>();
  const add = (clientId: string) => {
    if (toPublic.has(clientId)) return;
    const id = hash(clientId);
    toPublic.set(clientId, id);
    byPublicId.set(id, clientId);
  };
  let refreshedAtMs = performance.now();
  for (const c of stored()) add(c);
  return {
    publicId: (clientId) => toPublic.get(clientId) ?? hash(clientId),
    clientIdOf(publicId) {
      const found = byPublicId.get(publicId);
      if (found !== undefined || performance.now() - refreshedAtMs < DIRECTORY_REFRESH_MS) return found;
      refreshedAtMs = performance.now();
      for (const c of stored()) add(c);
      return byPublicId.get(publicId);
    },
    add,
    remove(clientId) {
      const id = toPublic.get(clientId);
      toPublic.delete(clientId);
      if (id !== undefined) byPublicId.delete(id);
    },
  };
}
