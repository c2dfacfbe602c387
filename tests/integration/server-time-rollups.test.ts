// Rollups keep the server's handler time of ok probes (rollups.srv: SQLite
// version 9, PostgreSQL 7), what the change finder sets a probe's moves
// against. A database of the version before opens with the column added and
// every answer as before; rows written from then on carry it. Both stores.
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION as POSTGRES_VERSION } from "../../server/store/postgres/schema.js";
import { SCHEMA_VERSION as SQLITE_VERSION } from "../../server/store/sqlite/schema.js";
import { emptyRollup, quantile } from "../../shared/rollup.js";
import { mergeEncoded } from "../../shared/rollup-codec.js";
import { startInProcess } from "../helpers/in-process.js";
import { executeOn, freshDb, selectAll, STORE_KINDS } from "../helpers/store-kinds.js";

type Server = Awaited<ReturnType<typeof startInProcess>>;

/** XHR and WebSocket probes reporting their server time, and pings (which report none). */
function batch(first: number, now: number, serverMs: number) {
  return Array.from({ length: 300 }, (_, k) => {
    const i = first + k;
    const method = ["xhr", "ws", "ping"][i % 3]!;
    const t = now - 600_000 + i * 100;
    return method === "ping"
      ? { seq: i, t, method, target: "A", outcome: "ok", ms: 2 }
      : { seq: i, t, method, target: "A", outcome: "ok", ms: 10 + (i % 7), serverMs };
  });
}

async function post(server: Server, first: number, now: number, serverMs: number): Promise<void> {
  const res = await fetch(`${server.url}/api/samples`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ clientId: "client_v7", sessionId: "client_v7_s", samples: batch(first, now, serverMs) }),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** The 5-minute all-clients rows' server time per method: values recorded and their median (ms). */
async function serverTime(server: Server): Promise<Record<string, { n: number; p50: number | null }>> {
  const rows = await selectAll<{ method: string; srv: Uint8Array | null }>(
    server,
    "SELECT s.method, r.srv FROM rollups r JOIN series s ON s.id = r.series WHERE r.level = 0 AND r.client = 0 AND r.class = 255",
  );
  const out: Record<string, { n: number; p50: number | null }> = {};
  for (const r of rows) {
    const merged = emptyRollup();
    if (r.srv !== null) mergeEncoded(merged, r.srv);
    const prev = out[r.method]?.n ?? 0;
    out[r.method] = {
      n: prev + merged.count,
      p50: merged.count > 0 ? quantile(merged, 50)! / 1000 : (out[r.method]?.p50 ?? null),
    };
  }
  return out;
}

describe.each(STORE_KINDS)("%s: server time in the rollups", (kind) => {
  it("is recorded for probes that report it, and an older database gains the column", async () => {
    const now = Date.now();
    const db = await freshDb(kind, "v7_srv");
    const args = ["--db", db, "--no-rate-limit"];
    const first = await startInProcess(args);
    await post(first, 0, now, 0.25);
    expect(await serverTime(first)).toEqual({
      xhr: { n: 100, p50: expect.closeTo(0.25, 2) },
      ws: { n: 100, p50: expect.closeTo(0.25, 2) },
      ping: { n: 0, p50: null },
    });
    const statsBefore = await (await fetch(`${first.url}/api/stats?from=${now - 3_600_000}&to=${now}`)).json();
    await first.close();

    // What the version before wrote: no srv column, the older version number.
    await executeOn(first, "ALTER TABLE rollups DROP COLUMN srv");
    await executeOn(first, "UPDATE meta SET value = ? WHERE key = 'schema_version'", [
      // The version before rollups.srv: SQLite 9, PostgreSQL 7 (migrations/ v9-to-v10, v7-to-v8).
      kind === "sqlite" ? "9" : "7",
    ]);

    const upgraded = await startInProcess(args);
    try {
      expect(await selectAll(upgraded, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([
        { value: String(kind === "sqlite" ? SQLITE_VERSION : POSTGRES_VERSION) },
      ]);
      expect(await serverTime(upgraded)).toEqual({
        xhr: { n: 0, p50: null },
        ws: { n: 0, p50: null },
        ping: { n: 0, p50: null },
      });
      expect(await (await fetch(`${upgraded.url}/api/stats?from=${now - 3_600_000}&to=${now}`)).json()).toEqual(
        statsBefore,
      );
      await post(upgraded, 300, now, 4);
      const after = await serverTime(upgraded);
      expect(after.xhr!.n).toBe(100);
      expect(after.xhr!.p50).toBeCloseTo(4, 1);
      expect(after.ping!.n).toBe(0);
    } finally {
      await upgraded.close();
    }
  }, 60_000);
});
