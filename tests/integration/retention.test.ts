// Retention on a real database file with the clock passed in: raw samples
// older than rawDays go, and so do minute rollups; hour and day rollups stay
// until rollupDays; a range whose raw samples are gone still answers.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/sqlite/store.js";
import type { Sample } from "../../shared/contract/index.js";
import { tempDir } from "../../testkit/server-process.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 23);
const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("retention", () => {
  const store = openStore(path.join(dir, "r.db"), { rawDays: 2, rollupDays: 10, nowMs: () => NOW });
  afterAll(() => store.close());
  // One sample an hour for 20 days: 480 samples, 5000 per day-old batch is not needed.
  const samples: Sample[] = Array.from({ length: 480 }, (_, i) => ({
    seq: i,
    t: NOW - 20 * DAY_MS + i * 3_600_000 + 1000,
    method: "xhr",
    target: "A",
    ms: 1 + (i % 10),
    outcome: "ok",
  }));
  const inserted = store.insertBatch(
    { clientId: "client_r", sessionId: "session_r", samples },
    { userAgent: null, receivedAtMs: NOW },
  );
  const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
  /** The same over the raw samples, decoded from their blocks now. */
  const countRaw = (sql: string) => (loadSampleTables(store.db).prepare(sql).get() as { n: number }).n;

  it("prunes raw samples and minute rollups past rawDays, hours and days past rollupDays", async () => {
    await inserted;
    expect(countRaw("SELECT count(*) AS n FROM raw_samples")).toBe(480);
    const deleted = await store.pruneNow();
    expect(deleted).toBeGreaterThan(0);
    expect(countRaw("SELECT min(t) AS n FROM raw_samples")).toBeGreaterThanOrEqual(NOW - 2 * DAY_MS);
    expect(countRaw("SELECT count(*) AS n FROM raw_samples")).toBe(48);
    expect(count("SELECT min(start_ms) AS n FROM rollups WHERE level = 0")).toBeGreaterThanOrEqual(NOW - 2 * DAY_MS);
    expect(count("SELECT min(start_ms) AS n FROM rollups WHERE level = 1")).toBeGreaterThanOrEqual(NOW - 10 * DAY_MS);
    // Per client and class, and the aggregate row (any client, any class): two rows per bucket here.
    expect(count("SELECT count(*) AS n FROM rollups WHERE level = 1")).toBe(2 * 240);
    expect(count("SELECT count(*) AS n FROM rollups WHERE level = 2")).toBe(2 * 40);
    expect(count("SELECT count(*) AS n FROM rollups WHERE level = 3")).toBe(2 * 10);
    expect(store.rawKeptFromMs()).toBe(NOW - 2 * DAY_MS);
  });

  it("a second pass finds nothing more", async () => {
    expect(await store.pruneNow()).toBe(0);
  });
});

describe("retention over many clients and flag classes", () => {
  const store = openStore(path.join(dir, "many.db"), { rawDays: 2, rollupDays: 10, nowMs: () => NOW });
  afterAll(() => store.close());
  const CLIENTS = 30;
  // Each client one sample an hour for 20 days, in three lateness and two visibility classes:
  // 14,400 samples, several thousand 5-minute rollup rows, so a pass takes more than one batch.
  const inserted = Promise.all(
    Array.from({ length: CLIENTS }, (_, c) =>
      store.insertBatch(
        {
          clientId: `client_many_${c}`,
          sessionId: `session_many_${c}`,
          samples: Array.from(
            { length: 480 },
            (_, i): Sample => ({
              seq: i,
              t: NOW - 20 * DAY_MS + i * 3_600_000 + 1000 + c,
              method: "ws",
              target: "A",
              ms: 1 + ((i + c) % 10),
              outcome: "ok",
              lateMs: [0, 30, 900][i % 3]!,
              visibleAtSend: i % 2 === 0,
              visibleAtReply: true,
            }),
          ),
        },
        { userAgent: null, receivedAtMs: NOW },
      ),
    ),
  );
  const count = (sql: string, ...args: number[]) => (store.db.prepare(sql).get(...args) as { n: number }).n;
  const WIDTHS = [300_000, 3_600_000, 21_600_000, DAY_MS];
  /** A level's rows whose bucket ends by its cutoff (raw days for level 0, rollup days above). */
  const oldBound = (level: number) => NOW - (level === 0 ? 2 : 10) * DAY_MS - WIDTHS[level]!;

  it("deletes every old rollup of every (client, class) run and keeps every newer one", async () => {
    await inserted;
    const classes = count("SELECT count(DISTINCT class) AS n FROM rollups WHERE level = 0 AND client != 0");
    expect(classes).toBeGreaterThanOrEqual(6);
    const kept = WIDTHS.map((_, level) =>
      count("SELECT count(*) AS n FROM rollups WHERE level = ? AND start_ms > ?", level, oldBound(level)),
    );
    const old = WIDTHS.map((_, level) =>
      count("SELECT count(*) AS n FROM rollups WHERE level = ? AND start_ms <= ?", level, oldBound(level)),
    );
    expect(old[0]).toBeGreaterThan(2000); // more than one delete batch (PRUNE_BATCH_ROWS)
    const totals = count("SELECT count(*) AS n FROM rollups WHERE level = 4");
    await store.pruneNow();
    for (const level of WIDTHS.keys()) {
      expect(
        count("SELECT count(*) AS n FROM rollups WHERE level = ? AND start_ms <= ?", level, oldBound(level)),
        `level ${level} old rows`,
      ).toBe(0);
      expect(
        count("SELECT count(*) AS n FROM rollups WHERE level = ? AND start_ms > ?", level, oldBound(level)),
        `level ${level} kept rows`,
      ).toBe(kept[level]);
    }
    // The all-time level is never pruned.
    expect(count("SELECT count(*) AS n FROM rollups WHERE level = 4")).toBe(totals);
  });
});
