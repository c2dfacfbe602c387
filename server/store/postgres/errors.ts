// PostgreSQL failures as the storage faults the API answers with 503 +
// Retry-After (../../storage-faults.ts): the server unreachable, restarting
// or out of connections, a deadlock, a full disk. Any other error (a bug in
// a statement) stays what it is.
import { StorageError } from "../errors.js";

/** Socket-level failures of the client library and the OS. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/** StorageError codes this module produces; storage-faults.ts maps them to advice and Retry-After. */
export const PG_UNREACHABLE = "PG_UNREACHABLE";
export const PG_BUSY = "PG_BUSY";
export const PG_FULL = "PG_FULL";

/** SQLSTATE (5 characters) or the library's code → a StorageError code, or null when it is not a storage fault. */
export function faultCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  if (UNREACHABLE_CODES.has(code)) return PG_UNREACHABLE;
  // 08: connection exception; 57P01-3: shutdown, crash shutdown, cannot connect now; 53300: too many connections.
  if (code.startsWith("08") || /^57P0[1-3]$/.test(code) || code === "53300") return PG_UNREACHABLE;
  if (code === "53100") return PG_FULL;
  // 40001 serialization failure, 40P01 deadlock, 55P03 lock not available: try again shortly.
  if (code === "40001" || code === "40P01" || code === "55P03") return PG_BUSY;
  return null;
}

/** A storage fault becomes a StorageError (message scrubbed of secrets); anything else is returned unchanged. */
export function asStorageError(err: unknown, scrub: (text: string) => string): unknown {
  const code = faultCode(err);
  if (code === null) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new StorageError(scrub(`PostgreSQL: ${message}`), code);
}
