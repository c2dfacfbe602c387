// The few things the PostgreSQL store translates or hides: placeholders,
// the URL's password, and which errors are storage faults (503) at all.
import { describe, expect, it } from "vitest";
import { isPostgresUrl, redactUrl, scrubber, toPostgresPlaceholders } from "../../server/store/postgres/dialect.js";
import { faultCode, PG_BUSY, PG_FULL, PG_UNREACHABLE } from "../../server/store/postgres/errors.js";
import { classifyStorageError } from "../../server/storage-faults.js";
import { StorageError } from "../../server/store/errors.js";

describe("PostgreSQL dialect", () => {
  it("numbers ? placeholders in order, leaving those inside literals and quoted names", () => {
    expect(toPostgresPlaceholders("SELECT a FROM t WHERE x = ? AND y IN (?, ?)")).toBe(
      "SELECT a FROM t WHERE x = $1 AND y IN ($2, $3)",
    );
    expect(toPostgresPlaceholders(`SELECT '?' AS "q?" FROM t WHERE z = ?`)).toBe(
      `SELECT '?' AS "q?" FROM t WHERE z = $1`,
    );
  });

  it("knows a PostgreSQL URL from a file path", () => {
    expect(isPostgresUrl("postgres://h/d")).toBe(true);
    expect(isPostgresUrl("POSTGRESQL://h/d")).toBe(true);
    expect(isPostgresUrl("./data/postgres.db")).toBe(false);
  });

  it("never shows the password: redacted URL, scrubbed text", () => {
    const url = "postgres://tp:s3cr%40t-pw@db.example:5432/tailprobe";
    expect(redactUrl(url)).toBe("postgres://tp:***@db.example:5432/tailprobe");
    const scrub = scrubber(url);
    expect(scrub(`failed on ${url}: auth for s3cr@t-pw`)).toBe(
      "failed on postgres://tp:***@db.example:5432/tailprobe: auth for ***",
    );
    expect(redactUrl("postgres://tp@db.example/tailprobe")).toBe("postgres://tp@db.example/tailprobe");
  });
});

describe("PostgreSQL faults", () => {
  it("maps connection losses, shutdowns and lock conflicts to storage faults, and leaves statement errors alone", () => {
    for (const code of ["ECONNREFUSED", "CONNECTION_CLOSED", "CONNECT_TIMEOUT", "57P01", "57P03", "08006", "53300"])
      expect(faultCode({ code }), code).toBe(PG_UNREACHABLE);
    expect(faultCode({ code: "40P01" })).toBe(PG_BUSY);
    expect(faultCode({ code: "53100" })).toBe(PG_FULL);
    for (const code of ["42601", "23505", undefined]) expect(faultCode({ code }), String(code)).toBeNull();
  });

  it("answers an unreachable database with 503 advice and a short Retry-After", () => {
    const fault = classifyStorageError(new StorageError("PostgreSQL: connect ECONNREFUSED", PG_UNREACHABLE));
    expect(fault).toMatchObject({
      kind: "unreachable",
      retryAfterS: 5,
      advice: expect.stringMatching(/PostgreSQL is unreachable/),
    });
  });
});
