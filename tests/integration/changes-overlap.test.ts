// Two change requests in flight on one store at once, as the alerts'
// TailRegression (the last six hours, every minute) and a page's month can be:
// the shorter one, started first and finishing last, reads the shared hour
// cache's keys again from its own start. The longer one must still answer
// from the hours it read (it once lost its clients' changes: the client keys
// seemed empty before the short span, so no client was searched there).
import { describe, expect, it } from "vitest";
import { changeFinder, type FoundChange } from "../../server/changes/find-changes.js";
import type { ReadContext } from "../../server/query/reader.js";
import type { ReadPool } from "../../server/store/read-pool.js";
import { Pace } from "../../server/store/pace.js";
import { openStore } from "../../server/store/sqlite/store.js";
import { plantShifts } from "../../testkit/planted-shifts.js";
import { writeRollupMonth } from "../../testkit/rollup-month.js";
import type { MonthPlan } from "../../testkit/synthetic-month.js";
import { freshDb } from "../helpers/store-kinds.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const DAYS = 6;
const END_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS;
const START_MS = END_MS - DAYS * DAY_MS;
const targets = [{ name: "B", pathMs: 18, serverMs: 0.15 }];
const CLIENT_KEYS = ["synthetic-client-aa", "synthetic-client-bb"];
const plan: MonthPlan = {
  startMs: START_MS,
  days: DAYS,
  seed: 40,
  clients: 2,
  targets,
  methods: ["xhr", "ws", "ping"],
  shifts: plantShifts({ seed: 40, startMs: START_MS, days: DAYS, targets, clients: 2, perWeek: 10 }),
};
const essence = (c: FoundChange) => `${c.method} ${c.clientId ?? "all"} ${c.t} ${c.statistic} ${c.verdict}`;

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * A pool that orders two requests: hour reads from `shortFromMs` on (the
 * short request's) wait until the month's search asks for its first
 * 5-minute cells, and that ask waits until the short read has landed in the
 * shared cache.
 */
function ordered(pool: ReadPool, shortFromMs: number): { pool: ReadPool; shortHeld: Promise<void> } {
  let heldNow!: () => void;
  const shortHeld = new Promise<void>((r) => (heldNow = r));
  let releaseShort!: () => void;
  const shortMayRead = new Promise<void>((r) => (releaseShort = r));
  let landed!: () => void;
  const shortLanded = new Promise<void>((r) => (landed = r));
  const wrapped: ReadPool = Object.create(pool);
  wrapped.scan = async (sql, params, onRow, pace, rowsPerCheck) => {
    if (/WHERE level = 1 /.test(sql) && Number(params[0]) >= shortFromMs) {
      heldNow();
      await shortMayRead;
      await pool.scan(sql, params, onRow, pace, rowsPerCheck);
      // The cache is updated in the continuation of this read: a turn later it has landed.
      void yieldTurn().then(landed);
      return;
    }
    if (/WHERE level = 0 /.test(sql)) {
      releaseShort();
      await shortLanded;
    }
    return pool.scan(sql, params, onRow, pace, rowsPerCheck);
  };
  return { pool: wrapped, shortHeld };
}

describe("change requests that overlap", () => {
  it("a month asked while the last hours are being read answers as it does alone", async () => {
    const db = await freshDb("sqlite", "changes_overlap");
    const store = openStore(db, { rawDays: 36_500, rollupDays: 36_500 });
    try {
      await writeRollupMonth({ kind: "sqlite", store }, plan, CLIENT_KEYS);
      const ctx: ReadContext = { pool: store.readPool, rawKeptFromMs: () => store.rawKeptFromMs() };
      const month = { fromMs: START_MS, toMs: END_MS };
      const alone = (await changeFinder(ctx)(month, new Pace())).map(essence);
      expect(alone.filter((c) => !c.includes(" all ")).length).toBeGreaterThan(0);

      // The short request starts first, on a cold cache; its hour read waits.
      const o = ordered(store.readPool, START_MS + DAY_MS);
      const shared = changeFinder({ ...ctx, pool: o.pool });
      const recent = shared({ fromMs: END_MS - 6 * HOUR_MS, toMs: END_MS }, new Pace());
      await o.shortHeld;
      // The month reads every hour from its start; the short read lands as its search begins.
      const whole = shared(month, new Pace());
      const [, found] = await Promise.all([recent, whole]);
      expect(found.map(essence)).toEqual(alone);
      // And asked again, from the cache the two left, the same.
      expect((await shared(month, new Pace())).map(essence)).toEqual(alone);
    } finally {
      await store.close();
    }
  }, 120_000);
});
