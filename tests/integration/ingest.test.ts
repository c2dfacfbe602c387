// Reporting and storage: batches in, statistics out, each sample counted once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USER_AGENT_CHARS_MAX } from "../../server/api/ingest.js";
import type { StatsResponse } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { freshDb, selectOne, STORE_KINDS } from "../helpers/store-kinds.js";

describe.each(STORE_KINDS)("%s store", (kind) => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    // Target B must be a server this deployment knows; naming it means nobody is asked.
    server = await startInProcess(["--db", await freshDb(kind, "ingest"), "--peer", "B=http://127.0.0.1:9"]);
  });
  afterAll(async () => {
    await server.close();
  });

  const T0 = Date.now() - 60_000;

  function post(body: unknown, headers: Record<string, string> = {}) {
    return fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  async function stats(query = ""): Promise<StatsResponse> {
    const res = await fetch(`${server.url}/api/stats?from=${T0 - 1000}&to=${T0 + 3_600_000}${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as StatsResponse;
  }

  function samplesOf(method: string, target: string, latencies: (number | null)[], seq0: number) {
    return latencies.map((ms, i) => ({
      seq: seq0 + i,
      t: T0 + i * 1000,
      method,
      target,
      ms,
      outcome: ms === null ? "error" : "ok",
    }));
  }

  describe("POST /api/samples → GET /api/stats", () => {
    it("round-trips a batch into the seed's table", async () => {
      const xhr = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100 ms
      const body = {
        clientId: "client_round",
        sessionId: "session_round",
        label: "test",
        samples: [
          ...samplesOf("xhr", "A", xhr, 0),
          ...samplesOf("xhr", "A", [null, null], 100),
          ...samplesOf("ws", "B", [3, 4, 5], 200),
        ],
      };
      const res = await post(body);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ accepted: 105, duplicates: 0 });

      const s = await stats(`&client=${publicIdOf(server.store, "client_round")}`);
      const xhrA = s.rows.find((r) => r.method === "xhr" && r.target === "A");
      expect(xhrA).toMatchObject({
        count: 100,
        failures: 2,
        min: 1,
        p10: 10,
        p50: 50,
        mean: 50.5,
        p90: 90,
        p99: 99,
        p999: 100,
        max: 100,
      });
      const wsB = s.rows.find((r) => r.method === "ws" && r.target === "B");
      expect(wsB).toMatchObject({ count: 3, failures: 0, min: 3, p50: 4, max: 5 });
    });

    it("counts a re-sent batch once and reports the duplicates", async () => {
      const body = { clientId: "client_dup", sessionId: "session_dup", samples: samplesOf("jsonp", "A", [7, 8, 9], 0) };
      expect(await (await post(body)).json()).toEqual({ accepted: 3, duplicates: 0 });
      expect(await (await post(body)).json()).toEqual({ accepted: 0, duplicates: 3 });
      const overlap = { ...body, samples: samplesOf("jsonp", "A", [7, 8, 9, 10], 0) };
      expect(await (await post(overlap)).json()).toEqual({ accepted: 1, duplicates: 3 });
      const row = (await stats(`&client=${publicIdOf(server.store, "client_dup")}`)).rows.find(
        (r) => r.method === "jsonp",
      );
      expect(row).toMatchObject({ count: 4, max: 10 });
    });

    it("accepts sendBeacon's text/plain JSON", async () => {
      const body = { clientId: "client_beacon", sessionId: "session_beacon", samples: samplesOf("ws", "A", [2], 0) };
      const res = await post(JSON.stringify(body), { "Content-Type": "text/plain;charset=UTF-8" });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ accepted: 1, duplicates: 0 });
    });

    it.each([
      ["malformed JSON", "{not json", 400],
      [
        "a batch with one bad sample",
        {
          clientId: "client_bad",
          sessionId: "session_bad",
          samples: [
            ...samplesOf("xhr", "A", [1, 2], 0),
            { seq: 2, t: T0, method: "xhr", target: "A", ms: -5, outcome: "ok" },
          ],
        },
        400,
      ],
      [
        "an unknown field",
        { clientId: "client_bad", sessionId: "session_bad", samples: samplesOf("xhr", "A", [1], 0), admin: true },
        400,
      ],
    ])("refuses %s with 400 JSON and stores nothing", async (_what, body, status) => {
      const res = await post(body);
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({ error: expect.any(String) });
      const n = await selectOne<{ n: number }>(
        server,
        "SELECT count(*) AS n FROM samples WHERE session IN (SELECT id FROM sessions WHERE client_id = 'client_bad')",
      );
      expect(n.n).toBe(0);
    });

    it("refuses a body over the size limit with 413 JSON", async () => {
      const res = await post(`{"pad":"${"x".repeat(1_100_000)}"}`);
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: expect.any(String) });
    });

    it("refuses a session that belongs to another client with 409", async () => {
      const a = { clientId: "client_owner", sessionId: "session_owned", samples: samplesOf("xhr", "A", [1], 0) };
      expect((await post(a)).status).toBe(200);
      const res = await post({ ...a, clientId: "client_thief", samples: samplesOf("xhr", "A", [1], 1) });
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ error: expect.stringMatching(/another clientId/) });
    });

    it("stores a user agent to its first 512 characters", async () => {
      const ua = `Mozilla/5.0 ${"x".repeat(2000)}`;
      const body = { clientId: "client_long_ua", sessionId: "session_long_ua", samples: samplesOf("xhr", "A", [1], 0) };
      expect((await post(body, { "User-Agent": ua })).status).toBe(200);
      const row = await selectOne<{ user_agent: string }>(
        server,
        "SELECT user_agent FROM sessions WHERE session_key = 'session_long_ua'",
      );
      expect(row.user_agent).toBe(ua.slice(0, USER_AGENT_CHARS_MAX));
    });

    it("refuses writes from a foreign origin with 403", async () => {
      const body = { clientId: "client_foreign", sessionId: "session_foreign", samples: samplesOf("xhr", "A", [1], 0) };
      const res = await post(body, { Origin: "http://evil.example" });
      expect(res.status).toBe(403);
      expect((await post(body, { Origin: server.url })).status).toBe(200);
    });

    it("answers bad stats queries with 400 JSON", async () => {
      for (const q of ["from=yesterday", "from=10&to=5", "client=%3Bdrop", "bogus=1"]) {
        const res = await fetch(`${server.url}/api/stats?${q}`);
        expect(res.status, q).toBe(400);
        expect(await res.json()).toMatchObject({ error: expect.any(String) });
      }
    });

    it("serves the pages and their config", async () => {
      const cfg = (await (await fetch(`${server.url}/api/config`)).json()) as {
        name: string;
        servers: { name: string; url: string }[];
        intervalMs: number;
      };
      expect(cfg).toMatchObject({
        protocol: 1,
        name: "A",
        intervalMs: 1000,
        servers: [
          { name: "A", url: "" },
          { name: "B", url: "http://127.0.0.1:9" },
        ],
      });
      for (const p of ["/", "/histogram"]) {
        const res = await fetch(`${server.url}${p}`);
        expect(res.status, p).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/text\/html/);
      }
      const missing = await fetch(`${server.url}/no/such/page`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ error: expect.any(String) });
    });
  });
});
