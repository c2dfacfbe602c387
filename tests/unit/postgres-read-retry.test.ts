// The PostgreSQL read pool tries a read once more when it met a dead
// connection (server/store/postgres/read-pool.ts onceMore), and only then:
// not on a statement's own error, not twice, not after rows were handed on.
import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { Pace } from "../../server/store/pace.js";
import { postgresReadPool } from "../../server/store/postgres/read-pool.js";

const closed = () => Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" });
const badSql = () => Object.assign(new Error('relation "nope" does not exist'), { code: "42P01" });

/**
 * A stand-in for postgres.js: each call of unsafe() is one attempt, which
 * fails with `failures[attempt]` (after delivering `rowsBeforeFailure` rows to a
 * cursor) or answers two rows. Lazy, like the library's queries, so a failure
 * nobody awaits rejects nothing.
 */
function fakeSql(failures: (Error | undefined)[], rowsBeforeFailure = 0) {
  let attempts = 0;
  const CLOSE = Symbol("close");
  const sql = {
    CLOSE,
    unsafe() {
      const failure = failures[attempts++];
      const rows = [[1], [2]];
      return {
        // biome-ignore lint/suspicious/noThenProperty: the library's queries are thenables
        then(ok: (v: unknown) => unknown, no: (e: unknown) => unknown) {
          return (failure ? Promise.reject(failure) : Promise.resolve(rows.map(([n]) => ({ n })))).then(ok, no);
        },
        values: () => ({
          async cursor(_n: number, fn: (rows: unknown[][]) => Promise<unknown>) {
            if (failure !== undefined) {
              if (rowsBeforeFailure > 0) await fn(rows.slice(0, rowsBeforeFailure));
              throw failure;
            }
            await fn(rows);
          },
        }),
      };
    },
  };
  return { sql: sql as unknown as postgres.Sql, attempts: () => attempts };
}

const asIs = (err: unknown) => err;

describe("the PostgreSQL read pool after a dead connection", () => {
  it("answers a read that met a dead connection from the next one", async () => {
    const f = fakeSql([closed()]);
    const pool = postgresReadPool(f.sql, asIs);
    expect(await pool.all("SELECT n FROM t", [])).toEqual([{ n: 1 }, { n: 2 }]);
    expect(f.attempts()).toBe(2);
  });

  it("fails an outage after one more try, and a statement's own error at once", async () => {
    const down = fakeSql([closed(), closed(), closed()]);
    await expect(postgresReadPool(down.sql, asIs).all("SELECT 1", [])).rejects.toMatchObject({
      code: "CONNECTION_CLOSED",
    });
    expect(down.attempts()).toBe(2);
    const wrong = fakeSql([badSql()]);
    await expect(postgresReadPool(wrong.sql, asIs).all("SELECT 1", [])).rejects.toMatchObject({ code: "42P01" });
    expect(wrong.attempts()).toBe(1);
  });

  it("retries a scan that delivered no row, never one that did", async () => {
    const early = fakeSql([closed()]);
    const got: unknown[][] = [];
    await postgresReadPool(early.sql, asIs).scan("SELECT n FROM t", [], (r) => void got.push(r), new Pace());
    expect(got).toEqual([[1], [2]]);
    expect(early.attempts()).toBe(2);

    const late = fakeSql([closed()], 1);
    const partial: unknown[][] = [];
    await expect(
      postgresReadPool(late.sql, asIs).scan("SELECT n FROM t", [], (r) => void partial.push(r), new Pace()),
    ).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
    expect(partial).toEqual([[1]]);
    expect(late.attempts()).toBe(1);
  });
});
