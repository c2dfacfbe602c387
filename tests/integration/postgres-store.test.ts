// What only the PostgreSQL store has to get right: several servers writing
// the same rollup rows at once (no update lost, no deadlock), retention by
// whole day partitions, the admin delete on a shared database, and a URL's
// password kept out of every error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SampleBatch } from "../../shared/contract/index.js";
import { openPostgresStore } from "../../server/store/postgres/store.js";
import { DAY_MS } from "../../server/store/retention.js";
import { type StoreWithQueries, withQueries } from "../../server/query/with-queries.js";
import { postgresAvailable, type TestPostgres } from "../../testkit/postgres.js";
import { selectPostgres, testPostgres } from "../helpers/store-kinds.js";

const META = { userAgent: null, receivedAtMs: 0 };

describe.skipIf(!postgresAvailable())("PostgreSQL store", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await testPostgres();
  });
  const open: StoreWithQueries[] = [];
  afterAll(async () => {
    for (const s of open) await s.close();
  });
  const openOn = async (url: string, nowMs?: () => number) => {
    const s = withQueries(await openPostgresStore(url, { rawDays: 2, ...(nowMs ? { nowMs } : {}) }), {
      answerFrom: "rollups",
    });
    open.push(s);
    return s;
  };

  it("merges concurrent batches of two servers into the same rollup rows without losing one", async () => {
    const url = await pg.createDatabase("concurrent");
    const [a, b] = await Promise.all([openOn(url), openOn(url)]);
    const t0 = Math.floor((Date.now() - 3_600_000) / 300_000) * 300_000;
    // Every batch touches the same cells (one 5-minute bucket, one series): the worst case for locking.
    const batchOf = (client: string, k: number): SampleBatch => ({
      clientId: client,
      sessionId: `${client}_session`,
      samples: Array.from({ length: 50 }, (_, i) => ({
        seq: k * 50 + i,
        t: t0 + k * 50 + i,
        method: "xhr",
        target: "A",
        ms: 1 + ((k + i) % 40),
        outcome: "ok",
      })),
    });
    const BATCHES = 20;
    await Promise.all(
      (["ca", "cb", "cc", "cd"] as const).map(async (client, c) => {
        for (let k = 0; k < BATCHES; k++) await (c % 2 === 0 ? a : b).insertBatch(batchOf(client, k), META);
      }),
    );
    const f = { fromMs: t0, toMs: t0 + 300_000 - 1 };
    for (const store of [a, b]) {
      const [row] = await store.stats(f);
      expect(row).toMatchObject({ method: "xhr", target: "A", count: 4 * BATCHES * 50, min: 1, max: 40 });
    }
    const [agg] = await selectPostgres<{ n: number }>(
      url,
      "SELECT count(*) AS n FROM rollups WHERE level = 0 AND client = 0",
    );
    expect(agg?.n).toBe(1);
  });

  it("drops whole day partitions past --raw-days and answers older ranges from rollups", async () => {
    const url = await pg.createDatabase("retention");
    const now = Date.now();
    const store = await openOn(url, () => now);
    const old = Math.floor(now / DAY_MS) * DAY_MS - 4 * DAY_MS + 3_600_000;
    await store.insertBatch(
      {
        clientId: "c",
        sessionId: "s",
        samples: [{ seq: 0, t: old, method: "xhr", target: "A", ms: 5, outcome: "ok" }],
      },
      META,
    );
    await store.insertBatch(
      {
        clientId: "c",
        sessionId: "s",
        samples: [{ seq: 1, t: now - 1000, method: "xhr", target: "A", ms: 6, outcome: "ok" }],
      },
      META,
    );
    const parts = async () =>
      (
        await selectPostgres<{ n: number }>(
          url,
          "SELECT count(*) AS n FROM pg_inherits WHERE inhparent = 'raw_samples'::regclass",
        )
      )[0]!.n;
    const before = await parts();
    expect(await store.pruneNow()).toBeGreaterThanOrEqual(1);
    expect(await parts()).toBe(before - 1);
    expect(store.rawKeptFromMs()).toBeGreaterThan(old);
    const [raw] = await selectPostgres<{ n: number }>(url, "SELECT count(*) AS n FROM raw_samples");
    expect(raw?.n).toBe(1);
    // The old sample still counts, from its hour rollup.
    const [row] = await store.stats({ fromMs: old - 3_600_000, toMs: now });
    expect(row?.count).toBe(2);
  });

  it("forgets one client and rebuilds the aggregate rows from the others", async () => {
    const url = await pg.createDatabase("delete");
    const store = await openOn(url);
    const t = Date.now() - 600_000;
    for (const [client, ms] of [
      ["keep", 3],
      ["drop", 300],
    ] as const)
      await store.insertBatch(
        {
          clientId: client,
          sessionId: `${client}_s`,
          samples: [{ seq: 0, t, method: "xhr", target: "A", ms, outcome: "ok" }],
        },
        META,
      );
    expect(await store.deleteClient("drop")).toEqual({ samples: 1, sessions: 1 });
    const [row] = await store.stats({ fromMs: t - 1, toMs: t + 1 });
    expect(row).toMatchObject({ count: 1, min: 3, max: 3 });
    expect(store.storedClientIds()).not.toContain("drop");
  });

  it("shares the targets each server measures with every server on the database", async () => {
    const url = await pg.createDatabase("targets");
    const [a, b] = await Promise.all([openOn(url), openOn(url)]);
    a.announceTargets(["eu", "us", "eu+us"]);
    b.announceTargets(["asia"]);
    // Announced and read back at the next refresh (DEPLOYMENT_REFRESH_MS, 1 s): bounded wait.
    for (let i = 0; i < 50 && (a.deploymentTargets().length < 4 || b.deploymentTargets().length < 4); i++)
      await new Promise((r) => setTimeout(r, 100));
    for (const s of [a, b]) expect([...s.deploymentTargets()].sort()).toEqual(["asia", "eu", "eu+us", "us"]);
  });

  it("never shows the password of a URL it cannot use", async () => {
    const bad = pg.url.replace(/:[0-9a-f]+@/, ":wrong-secret-pw@");
    const err = await openPostgresStore(bad).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/cannot open postgres:\/\/tailprobe:\*\*\*@127\.0\.0\.1/);
    expect(err!.message).not.toContain("wrong-secret-pw");
  });
});
