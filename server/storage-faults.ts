// Storage faults, by SQLite's error code (or the PostgreSQL store's): what the server answers while the
// disk is full, the file read-only, locked or damaged, and what it tells the
// operator. Ingest answers 503 + Retry-After (the page keeps its samples and
// retries), logs one line when a fault starts and one when it ends.
import type { ServerResponse } from "node:http";
import { writeJson } from "./json-answer.js";
import { PG_BUSY, PG_FULL, PG_UNREACHABLE } from "./store/postgres/errors.js";

export type StorageFaultKind = "full" | "read-only" | "busy" | "corrupt" | "io" | "unreachable";

export interface StorageFault {
  kind: StorageFaultKind;
  /** SQLite's extended code, e.g. SQLITE_IOERR_WRITE, or the PostgreSQL store's (store/postgres/errors.ts), e.g. PG_UNREACHABLE. */
  code: string;
  /** What the client is told to wait (s). */
  retryAfterS: number;
  /** What the operator should do. */
  advice: string;
}

/** Seconds to wait per fault: a lock passes in moments, a full or read-only disk needs a person. */
const RETRY_AFTER_S: Record<StorageFaultKind, number> = {
  busy: 1,
  unreachable: 5,
  io: 10,
  full: 30,
  "read-only": 30,
  corrupt: 300,
};

const ADVICE: Record<StorageFaultKind, string> = {
  full: "the disk is full: free space (or lower the raw retention); ingest resumes by itself",
  "read-only": "the database file or its folder is read-only: make them writable; ingest resumes by itself",
  busy: "another process holds a lock on the database: stop it (tailprobe's writer waits 1 s for a lock, its event loop never)",
  corrupt:
    "the database file is damaged or not a tailprobe database: move it aside and restart to begin a new one, or restore a backup",
  unreachable:
    "PostgreSQL is unreachable, restarting or out of connections: start it (or raise max_connections); ingest and queries resume by themselves",
  io: "the disk reports I/O errors (or the file was made read-only or immutable): check the disk and the file's attributes",
};

export function classifyStorageError(err: unknown): StorageFault | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  const pg: Record<string, StorageFaultKind> = {
    [PG_UNREACHABLE]: "unreachable",
    [PG_BUSY]: "busy",
    [PG_FULL]: "full",
  };
  if (Object.hasOwn(pg, code))
    return { kind: pg[code]!, code, retryAfterS: RETRY_AFTER_S[pg[code]!], advice: ADVICE[pg[code]!] };
  if (!code.startsWith("SQLITE_")) return undefined;
  const kind: StorageFaultKind | undefined =
    code === "SQLITE_FULL"
      ? "full"
      : code.startsWith("SQLITE_READONLY")
        ? "read-only"
        : code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")
          ? "busy"
          : code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB"
            ? "corrupt"
            : code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_CANTOPEN")
              ? "io"
              : undefined;
  return kind === undefined ? undefined : { kind, code, retryAfterS: RETRY_AFTER_S[kind], advice: ADVICE[kind] };
}

export interface StorageHealth {
  /** Answers a storage fault with 503 + Retry-After (true), or leaves any other error alone (false). */
  failed(err: unknown, res: ServerResponse, what: string): boolean;
  /** A write or read succeeded: a fault in progress has ended. */
  succeeded(): void;
}

export function storageHealth(dbPath: string, log: (line: string) => void): StorageHealth {
  let current: StorageFault | undefined;
  return {
    failed(err, res, what) {
      const fault = classifyStorageError(err);
      if (fault === undefined) return false;
      if (current?.kind !== fault.kind) log(`tailprobe: ${what} failing, ${fault.code} on ${dbPath}: ${fault.advice}`);
      current = fault;
      const body = {
        error: `storage unavailable (${fault.kind}); nothing stored, retry after Retry-After seconds`,
        code: "STORAGE_UNAVAILABLE",
      };
      writeJson(res, 503, body, { "Retry-After": String(fault.retryAfterS), "Cache-Control": "no-store" });
      return true;
    },
    succeeded() {
      if (current === undefined) return;
      log(`tailprobe: storage works again (after ${current.code})`);
      current = undefined;
    },
  };
}

/** The message for a database that cannot be opened at start-up, or undefined if the error is not about storage. */
export function startupStorageMessage(err: unknown, dbPath: string): string | undefined {
  const fault = classifyStorageError(err);
  if (fault === undefined) return undefined;
  if (fault.kind === "corrupt")
    return (
      `${dbPath} is damaged or not a tailprobe database (${fault.code}). tailprobe will not overwrite it. ` +
      `Move it aside (mv '${dbPath}' '${dbPath}.damaged') and start again for a new database, or restore it from a backup.`
    );
  return `cannot open ${dbPath} (${fault.code}): ${fault.advice}`;
}
