// The server's store writes in its own thread: a batch's promise settles
// after the commit, a SQLite error reaches the caller with its code, while
// the writer waits on a lock the event loop keeps turning, and on Linux the
// thread runs as SCHED_BATCH (batch-scheduling.ts).
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openStoreThreaded, StorageError, WRITER_BUSY_TIMEOUT_MS } from "../../server/store/store.js";
import type { Sample } from "../../shared/contract/index.js";
import { tempDir } from "../../testkit/server-process.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 10, 1);
const batch = (sessionId: string, n: number) => ({
  clientId: "client_thread",
  sessionId,
  samples: Array.from({ length: n }, (_, seq): Sample => ({ seq, t: T0 + seq, method: "xhr", target: "A", ms: 1 + seq, outcome: "ok" })),
});
const meta = { userAgent: null, receivedAtMs: T0 };

describe("the writer thread", () => {
  it("answers after the commit: what it acknowledged is readable at once", async () => {
    const dbPath = path.join(dir, "a.db");
    const store = await openStoreThreaded(dbPath);
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

  it("carries SQLite's error code across, and the event loop turns while the writer waits on a lock", { timeout: 20_000 }, async () => {
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

  it.runIf(process.platform === "linux")("runs as SCHED_BATCH, so waking it never preempts the event loop", async () => {
    const SCHED_BATCH = 3;
    /** This process's threads by id → scheduling policy (/proc stat field 41). */
    const policies = () =>
      new Map(
        fs.readdirSync("/proc/self/task").flatMap((tid) => {
          try {
            const fields = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
            return [[tid, Number(fields[41 - 3])] as const];
          } catch {
            return []; // the thread ended between the listing and the read
          }
        }),
      );
    const before = policies();
    expect([...before.values()].filter((p) => p === SCHED_BATCH)).toEqual([]);
    const store = await openStoreThreaded(path.join(dir, "c.db"));
    try {
      const added = [...policies()].filter(([tid]) => !before.has(tid));
      // The writer's thread, and only it: the event loop keeps the default policy.
      expect(added.filter(([, p]) => p === SCHED_BATCH)).toHaveLength(1);
      expect(policies().get(String(process.pid))).toBe(0);
      expect(await store.insertBatch(batch("session_c", 3), meta)).toEqual({ accepted: 3, duplicates: 0 });
    } finally {
      await store.close();
    }
  });
});
