// Rollups keep the server's handler time of ok probes (rollups.srv: SQLite
// version 10, PostgreSQL 8), what the change finder sets a probe's moves
// against: recorded for the probes that report it, through the ingest, on
// both stores. A database from before the column: migration-steps.test.ts.
import { describe, expect, it } from "vitest";
import { emptyRollup, quantile } from "../../shared/rollup.js";
import { mergeEncoded } from "../../shared/rollup-codec.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, selectAll, STORE_KINDS } from "../helpers/store-kinds.js";

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
    body: JSON.stringify({ clientId: "client_srv", sessionId: "client_srv_s", samples: batch(first, now, serverMs) }),
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
  it("is recorded for probes that report it, and not for those that do not", async () => {
    const now = Date.now();
    const server = await startInProcess(["--db", await freshDb(kind, "srv_rollups"), "--no-rate-limit"]);
    try {
      await post(server, 0, now, 0.25);
      expect(await serverTime(server)).toEqual({
        xhr: { n: 100, p50: expect.closeTo(0.25, 2) },
        ws: { n: 100, p50: expect.closeTo(0.25, 2) },
        ping: { n: 0, p50: null },
      });
    } finally {
      await server.close();
    }
  });
});
