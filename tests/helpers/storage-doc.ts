// docs/security.md's storage-fault table, read as the tests check the server
// against it: each row's codes (`SQLITE_IOERR*` names a prefix) and the
// Retry-After it promises.
import fs from "node:fs";
import path from "node:path";

const DOC = fs.readFileSync(path.resolve("docs/security.md"), "utf8");

const ROWS = [...DOC.matchAll(/^\| (`(?:SQLITE|PG)_[^|]+)\|[^|]*\| (\d+) s \|$/gm)].map((m) => ({
  codes: [...m[1]!.matchAll(/`((?:SQLITE|PG)_[A-Z_]+)(\*?)`/g)].map((c) => ({ name: c[1]!, prefix: c[2] === "*" })),
  retryAfterS: Number(m[2]),
}));

/** The Retry-After (s) docs/security.md gives for a storage fault code; throws if the table does not name it. */
export function documentedRetryAfterS(code: string): number {
  const row = ROWS.find((r) => r.codes.some((c) => (c.prefix ? code.startsWith(c.name) : code === c.name)));
  if (row === undefined) throw new Error(`docs/security.md's storage-fault table does not name ${code}`);
  return row.retryAfterS;
}

/** How long docs/security.md says the writer waits for a locked SQLite database before answering 503 (ms). */
export function documentedBusyWaitMs(): number {
  const m = /after the writer thread has waited (\d+) s for the lock/.exec(DOC);
  if (m === null) throw new Error("docs/security.md does not say how long a locked database is waited for");
  return Number(m[1]) * 1000;
}
