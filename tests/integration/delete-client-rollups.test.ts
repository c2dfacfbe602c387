// Forgetting a client (the admin API) takes its samples out of every answer,
// the rollup path included: the aggregate rows it shared with other clients
// are rebuilt so the unfiltered view equals the remaining client's own.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/sqlite/store.js";
import { type StoreWithQueries, withQueries } from "../../server/query/with-queries.js";
import type { Sample } from "../../shared/contract/index.js";
import { mulberry32 } from "../../shared/prng.js";
import { tempDir } from "../../testkit/server-process.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";

const T0 = Date.UTC(2026, 9, 1);
const HOUR = 3_600_000;
let store: StoreWithQueries;

function samples(seed: number, n: number, scaleMs: number): Sample[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, (_, seq) => ({
    seq,
    t: T0 + seq * 10_000,
    method: "xhr" as const,
    target: "A",
    ms: seq % 50 === 0 ? null : Math.round(scaleMs * (1 + 4 * r()) * 1000) / 1000,
    outcome: seq % 50 === 0 ? ("error" as const) : ("ok" as const),
  }));
}

beforeAll(async () => {
  store = withQueries(openStore(path.join(tempDir(), "delete.db"), { rawDays: 36_500, rollupDays: 36_500 }), {
    answerFrom: "rollups",
  });
  const meta = { userAgent: null, receivedAtMs: T0 };
  // Two clients over the same hours: every aggregate rollup row holds both.
  await store.insertBatch({ clientId: "client_keep", sessionId: "session_keep", samples: samples(1, 900, 5) }, meta);
  await store.insertBatch({ clientId: "client_gone", sessionId: "session_gone", samples: samples(2, 900, 50) }, meta);
});
afterAll(async () => {
  await store.close();
});

describe("deleting a client", () => {
  it("leaves the unfiltered rollup answer equal to the remaining client's", async () => {
    const range = { fromMs: T0, toMs: T0 + 3 * HOUR };
    const before = await store.stats(range);
    expect(before[0]!.count).toBe(2 * (900 - 18));
    const deleted = await store.deleteClient("client_gone");
    expect(deleted).toEqual({ samples: 900, sessions: 1 });
    const after = await store.stats(range);
    const keep = await store.stats({ ...range, clientId: "client_keep" });
    expect(after).toEqual(keep);
    expect(after[0]!.count).toBe(900 - 18);
    // The gone client's large latencies no longer set the maximum.
    expect(after[0]!.max).toBeLessThan(before[0]!.max!);
    // Its own rows are gone from every table.
    const left = (sql: string) => (sqliteDb(store).prepare(sql).get() as { n: number }).n;
    expect(left("SELECT count(*) AS n FROM sessions WHERE client_id = 'client_gone'")).toBe(0);
    expect(left("SELECT count(*) AS n FROM clients WHERE client_key = 'client_gone'")).toBe(0);
  });

  it("a client deleted and then seen again starts afresh", async () => {
    const res = await store.insertBatch(
      { clientId: "client_gone", sessionId: "session_gone_2", samples: samples(3, 10, 5) },
      { userAgent: null, receivedAtMs: T0 },
    );
    expect(res).toEqual({ accepted: 10, duplicates: 0 });
  });
});
