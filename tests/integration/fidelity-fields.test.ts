// Issue 12's fields through the real server: a sample's reportInFlight is
// stored as a flag bit and filters /api/stats (and the charts) with
// reportInFlight=0|1; a batch's timerResolutionMs is kept per session and
// answered as /api/stats's timerResolutionMs; a batch's engine likewise, per
// engine in /api/stats and as export columns; the column is added to a
// database made before it, idempotently.
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../server/store/sqlite/migrations/migrate.js";
import { FLAG, FLAG_KNOWN_SHIFT } from "../../server/store/flags.js";
import type { StatsResponse } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { tempDir } from "../../testkit/server-process.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { freshDb, selectAll, STORE_KINDS } from "../helpers/store-kinds.js";

describe.each(STORE_KINDS)("%s store", (kind) => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    server = await startInProcess(["--db", await freshDb(kind, "fidelity")]);
  });
  afterAll(async () => {
    await server.close();
  });

  const T0 = Date.now() - 600_000;

  const post = (body: unknown) =>
    fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });

  async function stats(from: number, to: number, query = ""): Promise<StatsResponse> {
    const res = await fetch(`${server.url}/api/stats?from=${from}&to=${to}${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as StatsResponse;
  }

  describe("reportInFlight and timerResolutionMs", () => {
    it("stores reportInFlight as a flag bit and filters on it", async () => {
      // 10 probes sent clear of any report (1 ms), 5 while one was in flight (9 ms), 3 recording nothing (5 ms).
      const ms = [...Array<number>(10).fill(1), ...Array<number>(5).fill(9), ...Array<number>(3).fill(5)];
      const samples = ms.map((v, i) => ({
        seq: i,
        t: T0 + i * 1000,
        method: "xhr",
        target: "A",
        ms: v,
        outcome: "ok",
        ...(v === 5 ? {} : { reportInFlight: v === 9 }),
      }));
      expect((await post({ clientId: "client_flag", sessionId: "session_flag", samples })).status).toBe(200);
      const rows = await selectAll<{ ms: number; flags: number }>(
        server,
        "SELECT ms, flags FROM samples WHERE session = (SELECT id FROM sessions WHERE session_key = 'session_flag')",
      );
      const bit = FLAG.reportInFlight;
      for (const r of rows) {
        expect((r.flags >> FLAG_KNOWN_SHIFT) & bit, `known bit, ${r.ms} ms`).toBe(r.ms === 5 ? 0 : bit);
        expect(r.flags & bit, `value bit, ${r.ms} ms`).toBe(r.ms === 9 ? bit : 0);
      }
      const range = [T0 - 1, T0 + 60_000] as const;
      const row = async (q: string) =>
        (await stats(...range, `&client=${publicIdOf(server.store, "client_flag")}${q}`)).rows.find(
          (r) => r.method === "xhr",
        )!;
      expect((await row("")).count).toBe(18);
      expect(await row("&reportInFlight=1")).toMatchObject({ count: 5, min: 9, max: 9 });
      expect(await row("&reportInFlight=0")).toMatchObject({ count: 13, max: 5 });
      // The chart endpoints share the filter.
      const h = (await (
        await fetch(
          `${server.url}/api/histogram?from=${range[0]}&to=${range[1]}&client=${publicIdOf(server.store, "client_flag")}&reportInFlight=1`,
        )
      ).json()) as {
        series: { count: number }[];
      };
      expect(h.series.map((s) => s.count)).toEqual([5]);
      const bad = await fetch(`${server.url}/api/stats?reportInFlight=yes`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ code: "INVALID_QUERY", error: expect.stringMatching(/reportInFlight/) });
    });

    it("keeps a session's first timer resolution and answers the range's coarsest", async () => {
      const t1 = T0 + 100_000;
      const batch = (session: string, seq: number, timerResolutionMs?: number) => ({
        clientId: "client_timer",
        sessionId: session,
        ...(timerResolutionMs !== undefined ? { timerResolutionMs } : {}),
        samples: [{ seq, t: t1 + seq * 1000, method: "ws", target: "A", ms: 1.2, outcome: "ok" }],
      });
      expect((await post(batch("session_fine", 0, 0.005))).status).toBe(200);
      // A later batch cannot change it.
      expect((await post(batch("session_fine", 1, 0.1))).status).toBe(200);
      expect((await stats(t1 - 1, t1 + 1500)).timerResolutionMs).toBe(0.005);
      expect((await post(batch("session_coarse", 10, 0.1))).status).toBe(200);
      expect((await stats(t1 - 1, t1 + 20_000)).timerResolutionMs).toBe(0.1);
      // Only the sessions with samples in the range count.
      expect((await stats(t1 - 1, t1 + 1500)).timerResolutionMs).toBe(0.005);
      expect((await post(batch("session_silent", 30))).status).toBe(200);
      expect((await stats(t1 + 29_000, t1 + 31_000)).timerResolutionMs).toBeNull();
      expect((await post({ ...batch("session_bad", 40), timerResolutionMs: -1 })).status).toBe(400);
    });

    it("keeps each session's engine; /api/stats groups the range's sessions by engine, the export carries both", async () => {
      const t2 = T0 + 200_000;
      const client = "client_engines";
      const batch = (session: string, seq: number, extra: Record<string, unknown>) => ({
        clientId: client,
        sessionId: session,
        ...extra,
        samples: [
          { seq, t: t2 + seq * 1000, method: "xhr", target: "A", ms: 3, outcome: "ok" },
          { seq: seq + 1, t: t2 + seq * 1000 + 5, method: "ping", target: "A", ms: 0.05, outcome: "ok" },
        ],
      });
      expect((await post(batch("session_gecko", 0, { engine: "gecko", timerResolutionMs: 0.02 }))).status).toBe(200);
      // A later batch cannot change a session's engine.
      expect((await post(batch("session_gecko", 2, { engine: "webkit" }))).status).toBe(200);
      expect((await post(batch("session_chromium", 10, { engine: "chromium", timerResolutionMs: 1 }))).status).toBe(
        200,
      );
      expect((await post(batch("session_unsaid", 20, {}))).status).toBe(200);
      expect((await post(batch("session_bad_engine", 30, { engine: "trident" }))).status).toBe(400);
      // Only these sessions have samples from t2 on (the tests above write before it).
      const s = await stats(t2 - 1, t2 + 25_000);
      expect(s.engines).toEqual([
        { engine: "chromium", sessions: 1, timerResolutionMs: 1 },
        { engine: "gecko", sessions: 1, timerResolutionMs: 0.02 },
        { engine: null, sessions: 1, timerResolutionMs: null },
      ]);
      expect(s.timerResolutionMs).toBe(1);
      // Probes carry the coarsest step of the range; baselines, measured by the servers, none.
      expect(s.rows.map((r) => [r.method, r.timerResolutionMs])).toEqual([
        ["xhr", 1],
        ["ping", null],
      ]);
      const onlyGecko = await stats(t2 - 1, t2 + 3000);
      expect(onlyGecko.engines).toEqual([{ engine: "gecko", sessions: 1, timerResolutionMs: 0.02 }]);
      expect(onlyGecko.rows.find((r) => r.method === "xhr")!.timerResolutionMs).toBe(0.02);

      const csv = await (await fetch(`${server.url}/api/samples.csv?from=${t2 - 1}&to=${t2 + 25_000}`)).text();
      const [header, ...lines] = csv.trim().split("\n");
      const cols = header!.split(",");
      const at = (line: string, col: string) => line.split(",")[cols.indexOf(col)];
      expect(cols).toEqual(expect.arrayContaining(["timerResolutionUs", "engine"]));
      expect(lines.map((l) => [at(l, "sessionId"), at(l, "seq"), at(l, "timerResolutionUs"), at(l, "engine")])).toEqual(
        [
          ["session_gecko", "0", "20", "gecko"],
          ["session_gecko", "1", "20", "gecko"],
          ["session_gecko", "2", "20", "gecko"],
          ["session_gecko", "3", "20", "gecko"],
          ["session_chromium", "10", "1000", "chromium"],
          ["session_chromium", "11", "1000", "chromium"],
          ["session_unsaid", "20", "", ""],
          ["session_unsaid", "21", "", ""],
        ],
      );
    });

    it("a version-1 database made before timer_resolution_us upgrades with it empty, once", () => {
      const db = new Database(path.join(tempDir(), "old.db"));
      db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '1');
        CREATE TABLE sessions (id INTEGER PRIMARY KEY, session_key TEXT NOT NULL UNIQUE, client_id TEXT NOT NULL,
          label TEXT, user_agent TEXT, first_seen_ms INTEGER NOT NULL);
        INSERT INTO sessions (session_key, client_id, first_seen_ms) VALUES ('old_session', 'old_client', 1);
        CREATE TABLE samples (session INTEGER NOT NULL, seq INTEGER NOT NULL, t INTEGER NOT NULL, method TEXT NOT NULL,
          target TEXT NOT NULL, ms REAL, outcome TEXT NOT NULL, scheduled_t INTEGER, late_ms REAL, hidden_ms REAL,
          flags INTEGER NOT NULL DEFAULT 0, reason TEXT, winner TEXT, other_ms REAL, other_outcome TEXT, minrtt REAL,
          server_lag_ms REAL, PRIMARY KEY (session, seq)) WITHOUT ROWID;`);
      migrate(db);
      migrate(db);
      const cols = (db.prepare("PRAGMA table_info(sessions)").all() as { name: string }[]).map((c) => c.name);
      expect(cols.filter((c) => c === "timer_resolution_us")).toHaveLength(1);
      expect(db.prepare("SELECT session_key, timer_resolution_us FROM sessions").all()).toEqual([
        { session_key: "old_session", timer_resolution_us: null },
      ]);
      db.close();
    });
  });
});
