// A database from before the stress test (SQLite 10, PostgreSQL 8: no
// stress_runs, no per-sample run and phase) opens in the current version with
// every sample as it was, outside any test, and takes a stress test's samples
// and report from then on.
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION as POSTGRES_VERSION } from "../../server/store/postgres/schema.js";
import { SCHEMA_VERSION as SQLITE_VERSION } from "../../server/store/sqlite/schema.js";
import { startInProcess } from "../helpers/in-process.js";
import { executeOn, freshDb, selectAll, STORE_KINDS } from "../helpers/store-kinds.js";

const exportRows = async (url: string) =>
  (await (await fetch(`${url}/api/samples.ndjson?from=0`)).text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { seq: number; ms: number; load: string | null; stressRun: string | null });

describe.each(STORE_KINDS)("a %s database from before the stress test", (kind) => {
  it("is upgraded: old samples read as outside any test, new ones keep their run and phase", async () => {
    const db = await freshDb(kind, "before_stress");
    const args = ["--db", db, "--no-rate-limit"];
    const now = Date.now();
    const first = await startInProcess(args);
    const post = (url: string, body: unknown) =>
      fetch(`${url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const old = Array.from({ length: 30 }, (_, i) => ({
      seq: i,
      t: now - 60_000 + i * 1000,
      method: "ws",
      target: "A",
      ms: 1 + i,
      outcome: "ok",
    }));
    expect((await post(first.url, { clientId: "client_mig_1", sessionId: "session_mig_1", samples: old })).status).toBe(
      200,
    );
    const before = await exportRows(first.url);
    await first.close();
    // What the older version's database holds: no stress_runs, no per-sample run and phase.
    await executeOn(first, "DROP TABLE stress_runs");
    if (kind === "postgres") {
      await executeOn(first, "DROP VIEW samples");
      await executeOn(first, "ALTER TABLE raw_samples DROP COLUMN stress_run, DROP COLUMN load");
    }
    await executeOn(first, "UPDATE meta SET value = ? WHERE key = 'schema_version'", [kind === "sqlite" ? "10" : "8"]);

    const upgraded = await startInProcess(args);
    try {
      expect(await selectAll(upgraded, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([
        { value: String(kind === "sqlite" ? SQLITE_VERSION : POSTGRES_VERSION) },
      ]);
      expect(await exportRows(upgraded.url)).toEqual(before);
      expect(before.every((r) => r.load === null && r.stressRun === null)).toBe(true);
      const tagged = { seq: 30, t: now - 1000, method: "ws", target: "A", ms: 9, outcome: "ok" };
      const res = await post(upgraded.url, {
        clientId: "client_mig_1",
        sessionId: "session_mig_1",
        samples: [{ ...tagged, stressRun: "run_after_upgrade", load: "upload" }],
      });
      expect(res.status, await res.text()).toBe(200);
      const after = await exportRows(upgraded.url);
      expect(after).toHaveLength(31);
      expect(after.at(-1)).toMatchObject({ seq: 30, load: "upload", stressRun: "run_after_upgrade" });
    } finally {
      await upgraded.close();
    }
  });
});
