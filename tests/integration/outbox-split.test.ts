// The page's outbox against a real server: a batch of 500 with one sample the
// server refuses is split, the 499 good ones are stored, the bad one counted.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { browserClock } from "../../client/src/common/clock.js";
import { Outbox } from "../../client/src/report/outbox.js";
import { MemoryStore } from "../../client/src/report/outbox-store.js";
import type { RunningServer } from "../../server/app.js";
import type { Sample } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startInProcess(["--name", "A"]);
});
afterAll(async () => {
  await server.close();
});

describe("outbox against a real server", () => {
  it("one bad sample among 500: 499 stored after the split, one counted as refused", async () => {
    const outbox = new Outbox(new MemoryStore(), {
      endpoint: `${server.url}/api/samples`,
      clock: browserClock,
      transport: { fetch: (url, init) => fetch(url, init) },
      clientId: "client_split",
      sessionId: "session_split",
    });
    await outbox.start();
    const t0 = Date.now() - 600_000;
    for (let seq = 0; seq < 500; seq++) {
      // seq 250 aims at a server this deployment does not know.
      const s: Sample = {
        seq,
        t: t0 + seq * 1000,
        method: "xhr",
        target: seq === 250 ? "Z" : "A",
        ms: 1 + (seq % 7),
        outcome: "ok",
      };
      outbox.add(s);
    }
    await vi.waitFor(() => expect(outbox.counters.pending).toBe(500), { timeout: 5000, interval: 10 });
    // One request per pump, the rest after the flush interval: pump as the page's housekeeping slots would.
    await vi.waitFor(
      () => {
        outbox.pump();
        expect(outbox.counters.pending).toBe(0);
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(outbox.counters).toMatchObject({ delivered: 499, rejected: 1, duplicates: 0, failures: 0 });
    const rows = loadSampleTables(sqliteDb(server.store))
      .prepare("SELECT seq, target FROM samples ORDER BY seq")
      .all() as { seq: number; target: string }[];
    expect(rows).toHaveLength(499);
    expect(rows.some((r) => r.seq === 250)).toBe(false);
    expect(new Set(rows.map((r) => r.target))).toEqual(new Set(["A"]));
  });
});
