// The server's store writes in its own thread: a batch's promise settles
// after the commit, a SQLite error reaches the caller with its code, while
// the writer waits on a lock the event loop keeps turning, and on Linux the
// thread runs as SCHED_IDLE, stepping up to SCHED_BATCH while writes wait
// (writer-yield.ts); a feature's own statements run there too (statements.ts).
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { withQueries } from "../../server/query/with-queries.js";
import { openStore, openStoreThreaded, type SqliteStore } from "../../server/store/sqlite/store.js";
import { StorageError } from "../../server/store/errors.js";
import { WRITER_BUSY_TIMEOUT_MS } from "../../server/store/sqlite/connection.js";
import type { Sample } from "../../shared/contract/index.js";
import { mayLeaveIdle } from "../../server/platform/thread-policy.js";
import { tempDir } from "../../testkit/server-process.js";
import { SCHED, threadPolicies } from "../../testkit/thread-policies.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 10, 1);
const batch = (sessionId: string, n: number) => ({
  clientId: "client_thread",
  sessionId,
  samples: Array.from(
    { length: n },
    (_, seq): Sample => ({ seq, t: T0 + seq, method: "xhr", target: "A", ms: 1 + seq, outcome: "ok" }),
  ),
});
const meta = { userAgent: null, receivedAtMs: T0 };
/** The step-down test's hold (ms), short for the test; the server's is 10 s. */
const HOLD_MS = 500;

/** This process's threads by id → scheduling policy. */
const policies = () => threadPolicies("self");

/** Whether this process may take a thread out of SCHED_IDLE (root, CAP_SYS_NICE, RLIMIT_NICE ≥ 20). */
const mayStepUp = () =>
  process.platform === "linux" &&
  mayLeaveIdle(fs.readFileSync("/proc/self/status", "utf8"), fs.readFileSync("/proc/self/limits", "utf8"));

/** Polls until the condition holds (true) or the time is up (false). */
async function until(cond: () => boolean, withinMs: number): Promise<boolean> {
  const end = performance.now() + withinMs;
  while (!cond()) {
    if (performance.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

describe("the writer thread", () => {
  it("answers after the commit: what it acknowledged is readable at once", async () => {
    const dbPath = path.join(dir, "a.db");
    const store = withQueries(await openStoreThreaded(dbPath));
    try {
      expect(await store.insertBatch(batch("session_a", 300), meta)).toEqual({ accepted: 300, duplicates: 0 });
      const other = new Database(dbPath, { readonly: true });
      expect(loadSampleTables(other).prepare("SELECT count(*) AS n FROM raw_samples").get()).toEqual({ n: 300 });
      other.close();
      expect(await store.insertBatch(batch("session_a", 310), meta)).toEqual({ accepted: 10, duplicates: 300 });
      expect((await store.stats({ fromMs: T0, toMs: T0 + 1000 }))[0]).toMatchObject({ count: 310, min: 1, max: 310 });
    } finally {
      await store.close();
    }
  });

  it("carries SQLite's error code across, and the event loop turns while the writer waits on a lock", {
    timeout: 20_000,
  }, async () => {
    const dbPath = path.join(dir, "b.db");
    const store = await openStoreThreaded(dbPath);
    const locker = new Database(dbPath);
    try {
      locker.exec("BEGIN IMMEDIATE"); // holds the write lock past the writer's busy timeout
      const turns = [performance.now()];
      const ticker = setInterval(() => turns.push(performance.now()), 10);
      const err = await store.insertBatch(batch("session_b", 5), meta).catch((e: unknown) => e);
      turns.push(performance.now());
      clearInterval(ticker);
      expect(err).toBeInstanceOf(StorageError);
      expect((err as StorageError).code).toBe("SQLITE_BUSY");
      // The event loop turned all through the wait: the wait was the thread's. Were it
      // the event loop's, one gap would be the whole busy timeout; a loaded machine
      // delays single turns by tens of ms.
      const gaps = turns.slice(1).map((t, i) => t - turns[i]!);
      expect(turns.at(-1)! - turns[0]!).toBeGreaterThanOrEqual(WRITER_BUSY_TIMEOUT_MS * 0.9);
      expect(Math.max(...gaps)).toBeLessThan(WRITER_BUSY_TIMEOUT_MS / 2);
      locker.exec("ROLLBACK");
      expect(await store.insertBatch(batch("session_b", 5), meta)).toEqual({ accepted: 5, duplicates: 0 });
    } finally {
      locker.close();
      await store.close();
    }
  });

  it.runIf(process.platform === "linux")(
    "runs as SCHED_IDLE (SCHED_BATCH where it could not step back up), the event loop as before",
    async () => {
      const before = policies();
      expect([...before.values()].filter((p) => p === SCHED.IDLE || p === SCHED.BATCH)).toEqual([]);
      const store = await openStoreThreaded(path.join(dir, "c.db"));
      try {
        const added = [...policies()].filter(([tid]) => !before.has(tid));
        // The writer's thread, and only it: the event loop keeps the default policy.
        const expected = mayStepUp() ? SCHED.IDLE : SCHED.BATCH;
        expect(added.filter(([, p]) => p === expected)).toHaveLength(1);
        expect(added.filter(([, p]) => p !== SCHED.OTHER && p !== expected)).toEqual([]);
        expect(policies().get(String(process.pid))).toBe(SCHED.OTHER);
        expect(await store.insertBatch(batch("session_c", 3), meta)).toEqual({ accepted: 3, duplicates: 0 });
      } finally {
        await store.close();
      }
    },
  );

  it.runIf(process.platform === "linux" && mayStepUp())(
    "steps up to SCHED_BATCH while a write waits past the lag, and back to SCHED_IDLE after the hold",
    { timeout: 20_000 },
    async () => {
      const dbPath = path.join(dir, "d.db");
      const before = policies();
      const store = await openStoreThreaded(dbPath, { writerYield: { lagMs: 100, holdMs: HOLD_MS } });
      const locker = new Database(dbPath);
      try {
        const writer = [...policies()].find(([tid, p]) => !before.has(tid) && p === SCHED.IDLE)?.[0];
        expect(writer).toBeDefined();
        const policy = () => policies().get(writer!);
        // A lock another connection holds keeps the write waiting, as a starved writer would.
        locker.exec("BEGIN IMMEDIATE");
        // On a slow machine the step up may come after the writer's busy timeout (1 s): the write then
        // fails with SQLITE_BUSY, which is not what this test is about.
        const write = store.insertBatch(batch("session_d", 5), meta).catch((e: unknown) => e);
        expect(await until(() => policy() === SCHED.BATCH, 5000)).toBe(true);
        locker.exec("ROLLBACK");
        const written = await write;
        const settledAt = performance.now();
        if (written instanceof StorageError) expect(written.code).toBe("SQLITE_BUSY");
        else expect(written).toEqual({ accepted: 5, duplicates: 0 });
        expect(policy()).toBe(SCHED.BATCH);
        // Writes answered in time, for longer than the hold: back to idle. A loaded machine may delay
        // some past the lag, each restarting the hold, so the writes go on until it steps down (bounded).
        let back = false;
        for (let seq = 10; !back && performance.now() - settledAt < 10_000; seq += 5) {
          await store.insertBatch(batch("session_d", seq), meta);
          await new Promise((r) => setTimeout(r, 50));
          back = policy() === SCHED.IDLE;
        }
        back ||= await until(() => policy() === SCHED.IDLE, 2000);
        expect(back).toBe(true);
        // Not before the hold: seen back at this moment or later.
        expect(performance.now() - settledAt).toBeGreaterThanOrEqual(HOLD_MS * 0.9);
      } finally {
        locker.close();
        await store.close();
      }
    },
  );
});

describe("a feature's statements (the tables beside the samples)", () => {
  const statements = (kind: string, open: () => Promise<SqliteStore>) =>
    it(`run in one transaction on the writer's connection, their rows and codes carried back (${kind})`, async () => {
      const store = await open();
      try {
        // The event loop's own connection is read-only: a write there would be refused.
        if (kind === "thread") expect(() => store.db.exec("CREATE TABLE nope (x)")).toThrow(/readonly/);
        const [created] = await store.writes.run([
          {
            sql: "CREATE TABLE IF NOT EXISTS feature_rows (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
            params: [],
          },
        ]);
        expect(created).toMatchObject({ changes: 0, rows: [] });
        const added = await store.writes.run([
          { sql: "INSERT INTO feature_rows (name) VALUES (?)", params: ["a"] },
          { sql: "INSERT INTO feature_rows (name) VALUES (?) RETURNING id, name", params: ["b"] },
          { sql: "SELECT count(*) AS n FROM feature_rows", params: [] },
        ]);
        expect(added.map((r) => r.changes)).toEqual([1, 1, 0]);
        expect(added[0]!.lastInsertRowid).toBe(1);
        expect(added[1]!.rows).toEqual([{ id: 2, name: "b" }]);
        expect(added[2]!.rows).toEqual([{ n: 2 }]);
        // All or none: the second statement's conflict takes the first one's row with it.
        const refused = await store.writes
          .run([
            { sql: "INSERT INTO feature_rows (name) VALUES (?)", params: ["c"] },
            { sql: "INSERT INTO feature_rows (name) VALUES (?)", params: ["a"] },
          ])
          .then(
            () => null,
            (err: unknown) => err,
          );
        expect(refused).toMatchObject({ code: "SQLITE_CONSTRAINT_UNIQUE" });
        if (kind === "thread") expect(refused).toBeInstanceOf(StorageError);
        expect(await store.readPool.all("SELECT name FROM feature_rows ORDER BY id", [])).toEqual([
          { name: "a" },
          { name: "b" },
        ]);
      } finally {
        await store.close();
      }
    });
  statements("thread", () => openStoreThreaded(path.join(dir, "statements-thread.db")));
  statements("in process", async () => openStore(path.join(dir, "statements-here.db")));
});
