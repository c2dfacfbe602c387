// A database of schema version 3 (before the rollups' running totals) opens in
// the current version (SQLite 5, PostgreSQL 4) with totals built once from its day rollups, the same rows the
// ingest would have kept: per series, client and flag class, and the
// aggregate, in both stores.
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION as POSTGRES_VERSION } from "../../server/store/postgres/schema.js";
import { SCHEMA_VERSION as SQLITE_VERSION } from "../../server/store/sqlite/schema.js";
import { startInProcess } from "../helpers/in-process.js";
import { executeOn, freshDb, selectAll, STORE_KINDS } from "../helpers/store-kinds.js";

const DAY_MS = 86_400_000;
const TOTALS_SQL = "SELECT * FROM rollups WHERE level = 4 ORDER BY client, class, series";

describe.each(STORE_KINDS)("a version 3 %s database", (kind) => {
  it("gets running totals equal to those the ingest keeps, once", async () => {
    const db = await freshDb(kind, "v3_totals");
    const args = ["--db", db, "--no-rate-limit", "--peer", "B=http://127.0.0.1:9"];
    const first = await startInProcess(args);
    const now = Date.now();
    // Several days, two clients, visible and hidden probes, every outcome, a race and a kernel min RTT.
    for (const [clientId, hidden] of [
      ["client_v3_a", false],
      ["client_v3_b", true],
    ] as const) {
      const samples = Array.from({ length: 60 }, (_, i) => {
        const t = now - (i % 5) * DAY_MS - i * 1000;
        const outcome = i % 11 === 0 ? "timeout" : i % 13 === 0 ? "error" : "ok";
        const ms = outcome === "ok" ? 1 + ((i * 37) % 90) / 3 : outcome === "timeout" ? 5000 : null;
        const base = { seq: i, t, outcome, ms, visibleAtSend: !hidden || i % 2 === 0, visibleAtReply: true };
        if (i % 4 === 0)
          return {
            ...base,
            method: "best2",
            target: "A+B",
            ...(outcome === "ok" ? { winner: "ws", otherMs: 40, otherOutcome: "ok" } : {}),
          };
        if (i % 4 === 1)
          return { ...base, method: "tcprtt", target: "A", ...(outcome === "ok" ? { minrtt: 0.25 } : {}) };
        return { ...base, method: i % 2 === 0 ? "xhr" : "ws", target: i % 3 === 0 ? "B" : "A" };
      });
      const res = await fetch(`${first.url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ clientId, sessionId: `${clientId}_s`, samples }),
      });
      expect(res.status, await res.text()).toBe(200);
    }
    const kept = await selectAll<Record<string, unknown>>(first, TOTALS_SQL);
    await first.close();
    expect(kept.filter((r) => r.client === 0).length).toBeGreaterThanOrEqual(5);
    expect(kept.filter((r) => r.client !== 0).length).toBeGreaterThan(kept.filter((r) => r.client === 0).length);

    // What a version 3 database holds: no total level.
    await executeOn(first, "DELETE FROM rollups WHERE level = 4");
    await executeOn(first, "UPDATE meta SET value = '3' WHERE key = 'schema_version'");

    const log: string[] = [];
    const upgraded = await startInProcess(args, log);
    try {
      expect(
        log.some((l) => /running totals from \d+ day rollups/.test(l)),
        log.join("\n"),
      ).toBe(true);
      expect(await selectAll(upgraded, TOTALS_SQL)).toEqual(kept);
      const version = kind === "sqlite" ? SQLITE_VERSION : POSTGRES_VERSION;
      expect(await selectAll(upgraded, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([
        { value: String(version) },
      ]);
    } finally {
      await upgraded.close();
    }
    const again: string[] = [];
    const reopened = await startInProcess(args, again);
    try {
      expect(again.filter((l) => /running totals/.test(l))).toEqual([]);
      expect(await selectAll(reopened, TOTALS_SQL)).toEqual(kept);
    } finally {
      await reopened.close();
    }
  });
});
