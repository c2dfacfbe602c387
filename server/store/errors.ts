// The errors every store raises, whatever its engine: values with codes that
// the API maps to answers (server/storage-faults.ts, server/api/).

/** A storage failure; `code` is the engine's (SQLITE_FULL, SQLITE_BUSY, PG_UNREACHABLE, …) when it had one. */
export class StorageError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "StorageError";
  }
}

/** A batch names a sessionId that another clientId already owns: refused whole, nothing stored. */
export class SessionOwnerError extends Error {
  readonly code = "SESSION_CLIENT_MISMATCH";
}

/** The asker went away (its signal aborted): the query stopped at its next yield. */
export class QueryAbortedError extends Error {
  readonly code = "QUERY_ABORTED";
}
