// PostgreSQL stopped under a running server: ingest answers 503 with
// Retry-After (the page's outbox keeps its samples), echo keeps answering,
// queries answer 503 with the reason, and both resume by themselves once
// the database is back, with nothing acknowledged lost or counted twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StatsResponse } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { testPostgres } from "../helpers/store-kinds.js";
import { postgresAvailable, type TestPostgres } from "../../testkit/postgres.js";

/** Bounded wait for recovery: polls every 200 ms for at most this long (ms). */
const RECOVERY_MS_MAX = 20_000;

describe.skipIf(!postgresAvailable())("PostgreSQL unavailable", () => {
  let pg: TestPostgres;
  let server: Awaited<ReturnType<typeof startInProcess>>;
  const log: string[] = [];
  const T0 = Date.now() - 60_000;
  const batch = (seq0: number, n: number) => ({
    clientId: "client_fault",
    sessionId: "session_fault",
    samples: Array.from({ length: n }, (_, i) => ({
      seq: seq0 + i,
      t: T0 + (seq0 + i) * 10,
      method: "xhr",
      target: "A",
      ms: 1 + i,
      outcome: "ok",
    })),
  });
  const post = (body: unknown) =>
    fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const stats = () => fetch(`${server.url}/api/stats?from=${T0 - 1000}&to=${T0 + 600_000}`);

  beforeAll(async () => {
    pg = await testPostgres();
    server = await startInProcess(["--db", await pg.createDatabase("faults")], log);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers 503 + Retry-After while the database is down, and resumes by itself", async () => {
    expect(await (await post(batch(0, 50))).json()).toEqual({ accepted: 50, duplicates: 0 });
    await pg.stopServer();
    try {
      const refused = await post(batch(50, 50));
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ code: "STORAGE_UNAVAILABLE" });
      const echo = await fetch(`${server.url}/echo`);
      expect(echo.status).toBe(200);
      const q = await stats();
      expect(q.status).toBe(503);
      expect(await q.json()).toMatchObject({
        code: "STORAGE_UNAVAILABLE",
        error: expect.stringMatching(/PostgreSQL is unreachable/),
      });
      for (const path of ["/api/histogram", "/api/clients", "/api/samples.csv"]) {
        const other = await fetch(
          `${server.url}${path}${path === "/api/clients" ? "" : `?from=${T0 - 1000}&to=${T0 + 600_000}`}`,
        );
        expect(other.status, path).toBe(503);
        expect(await other.json(), path).toMatchObject({ code: "STORAGE_UNAVAILABLE" });
      }
    } finally {
      await pg.startServer();
    }
    // The page's outbox sends the refused batch again (and the acknowledged one, as a redelivery would).
    let answer: Response | undefined;
    for (
      const deadline = Date.now() + RECOVERY_MS_MAX;
      Date.now() < deadline;
      await new Promise((r) => setTimeout(r, 200))
    ) {
      answer = await post(batch(50, 50));
      if (answer.status === 200) break;
    }
    expect(answer?.status).toBe(200);
    expect(await answer!.json()).toEqual({ accepted: 50, duplicates: 0 });
    expect(await (await post(batch(0, 50))).json()).toEqual({ accepted: 0, duplicates: 50 });
    const s = (await (await stats()).json()) as StatsResponse;
    expect(s.rows.find((r) => r.method === "xhr")?.count).toBe(100);
    // One line when the fault starts, one when it ends; never the password.
    expect(log.some((l) => /ingest failing, PG_UNREACHABLE/.test(l))).toBe(true);
    expect(log.some((l) => /storage works again/.test(l))).toBe(true);
    const password = new URL(server.options.dbPath).password;
    expect(log.filter((l) => l.includes(password))).toEqual([]);
  });
});
