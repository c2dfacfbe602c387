// The admin API exists only with a token, answers only POST/DELETE with the
// right one, and really deletes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { parseServeArgs } from "../../server/cli/options.js";
import { startInProcess } from "../helpers/in-process.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { freshDb, selectOne, STORE_KINDS } from "../helpers/store-kinds.js";

describe.each(STORE_KINDS)("%s store", (kind) => {
  const TOKEN = "admin-token-for-tests-0123456789";
  const DAY = 86_400_000;
  let plain: Awaited<ReturnType<typeof startInProcess>>;
  let admin: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    plain = await startInProcess(["--db", await freshDb(kind, "admin_plain")]);
    admin = await startInProcess(["--db", await freshDb(kind, "admin"), "--admin-token", TOKEN, "--no-rate-limit"]);
  });
  afterAll(async () => {
    await Promise.all([plain.close(), admin.close()]);
  });

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const count = async (s: Awaited<ReturnType<typeof startInProcess>>, where = "1 = 1") =>
    (await selectOne<{ n: number }>(s, `SELECT COUNT(*) AS n FROM samples WHERE ${where}`)).n;

  async function seed(s: RunningServer, clientId: string, ts: number[]) {
    const res = await fetch(`${s.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        clientId,
        sessionId: `${clientId}_session`,
        samples: ts.map((t, seq) => ({ seq, t, method: "xhr", target: "A", ms: 1, outcome: "ok" })),
      }),
    });
    expect(res.status).toBe(200);
  }

  describe("admin API", () => {
    it("does not exist without a token configured: 404 for every method", async () => {
      for (const [method, path] of [
        ["DELETE", "/api/admin/clients/AAAAAAAAAAAAAAAA"],
        ["POST", "/api/admin/prune"],
        ["GET", "/api/admin/prune"],
      ] as const) {
        const res = await fetch(`${plain.url}${path}`, { method, headers: auth(TOKEN) });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(await res.json()).toMatchObject({ code: "NOT_FOUND" });
      }
    });

    it("401 with a wrong, missing or prefix token; no CORS headers", async () => {
      for (const headers of [
        auth("wrong-token-wrong-token-wrong"),
        {},
        auth(TOKEN.slice(0, -1)),
        auth(`${TOKEN}x`),
        { Authorization: TOKEN },
      ]) {
        const res = await fetch(`${admin.url}/api/admin/prune`, {
          method: "POST",
          headers: { ...headers, Origin: "http://evil.example" },
        });
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ code: "UNAUTHORIZED" });
        expect(res.headers.get("access-control-allow-origin")).toBeNull();
      }
    });

    it("405 on GET (and on the other path's method), even with the right token", async () => {
      for (const [method, path] of [
        ["GET", "/api/admin/prune"],
        ["GET", "/api/admin/clients/x"],
        ["POST", "/api/admin/clients/x"],
        ["DELETE", "/api/admin/prune"],
      ] as const) {
        const res = await fetch(`${admin.url}${path}`, { method, headers: auth(TOKEN) });
        expect(res.status, `${method} ${path}`).toBe(405);
      }
      // A preflight gets no CORS answer: a browser page elsewhere can never send the token.
      const pre = await fetch(`${admin.url}/api/admin/prune`, {
        method: "OPTIONS",
        headers: { Origin: "http://evil.example" },
      });
      expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    });

    it("works with the right token: deletes one client's data, and prunes what is past retention", async () => {
      const now = Date.now();
      await seed(admin, "client_keep_1", [now - 1000, now - 29 * DAY]);
      await seed(admin, "client_gone_1", [now - 1000, now - 2000]);
      const gone = publicIdOf(admin.store, "client_gone_1");
      const del = await fetch(`${admin.url}/api/admin/clients/${gone}`, { method: "DELETE", headers: auth(TOKEN) });
      expect(del.status).toBe(200);
      expect(await del.json()).toEqual({ deleted: { samples: 2, sessions: 1 } });
      expect(await count(admin, "session IN (SELECT id FROM sessions WHERE client_id = 'client_gone_1')")).toBe(0);
      expect(await count(admin)).toBe(2);
      const again = await fetch(`${admin.url}/api/admin/clients/${gone}`, { method: "DELETE", headers: auth(TOKEN) });
      expect(again.status).toBe(404);

      // Samples older than the retention can only be there from before a retention change: plant one
      // through the store (the API refuses a sample that old).
      await admin.store.insertBatch(
        {
          clientId: "client_keep_1",
          sessionId: "client_keep_1_session",
          samples: [{ seq: 99, t: now - 40 * DAY, method: "xhr", target: "A", ms: 1, outcome: "ok" }],
        },
        { userAgent: null, receivedAtMs: now },
      );
      expect(await count(admin)).toBe(3);
      const prune = await fetch(`${admin.url}/api/admin/prune`, { method: "POST", headers: auth(TOKEN) });
      expect(prune.status).toBe(200);
      // The planted sample and its 5-minute rollups (its client's and the aggregate) are past retention.
      expect(((await prune.json()) as { deleted: { rows: number } }).deleted.rows).toBeGreaterThanOrEqual(1);
      expect(await count(admin)).toBe(2);
    });

    it("/metrics counts every sample ever stored: pruning leaves its counters, deleting a client lowers them", async () => {
      const s = await startInProcess([
        "--db",
        await freshDb(kind, "admin_totals"),
        "--admin-token",
        TOKEN,
        "--no-rate-limit",
        "--rollup-days",
        "35",
      ]);
      const okCount = async () => {
        const text = await (await fetch(`${s.url}/metrics`)).text();
        const line = text
          .split("\n")
          .find((l) => l.startsWith('tailprobe_samples_total{method="xhr",server="A",outcome="ok"}'));
        return Number(line?.slice(line.lastIndexOf(" ") + 1) ?? 0);
      };
      try {
        const now = Date.now();
        await seed(s, "client_totals_keep", [now - 1000, now - 2000]);
        await seed(s, "client_totals_gone", [now - 3000]);
        // Older than --rollup-days: only there from before a retention change (the API refuses it).
        await s.store.insertBatch(
          {
            clientId: "client_totals_keep",
            sessionId: "client_totals_keep_session",
            samples: [{ seq: 99, t: now - 40 * DAY, method: "xhr", target: "A", ms: 1, outcome: "ok" }],
          },
          { userAgent: null, receivedAtMs: now },
        );
        expect(await okCount()).toBe(4);
        const prune = await fetch(`${s.url}/api/admin/prune`, { method: "POST", headers: auth(TOKEN) });
        expect(prune.status).toBe(200);
        // Its raw row and every timed rollup of its day are gone; the running total still counts it.
        expect(
          (
            await selectOne<{ n: number }>(
              s,
              `SELECT COUNT(*) AS n FROM rollups WHERE level < 4 AND start_ms <= ${now - 39 * DAY}`,
            )
          ).n,
        ).toBe(0);
        expect(await count(s)).toBe(3);
        expect(await okCount()).toBe(4);
        const del = await fetch(`${s.url}/api/admin/clients/${publicIdOf(s.store, "client_totals_gone")}`, {
          method: "DELETE",
          headers: auth(TOKEN),
        });
        expect(del.status).toBe(200);
        expect(await okCount()).toBe(3);
      } finally {
        await s.close();
      }
    });

    it("prune keeps what --raw-days keeps", async () => {
      const long = await startInProcess([
        "--db",
        await freshDb(kind, "admin_long"),
        "--admin-token",
        TOKEN,
        "--no-rate-limit",
        "--raw-days",
        "60",
      ]);
      try {
        const now = Date.now();
        await seed(long, "client_long_1", [now - 40 * DAY]);
        const prune = await fetch(`${long.url}/api/admin/prune`, { method: "POST", headers: auth(TOKEN) });
        expect(prune.status).toBe(200);
        expect(((await prune.json()) as { beforeMs: number }).beforeMs).toBeLessThanOrEqual(Date.now() - 60 * DAY);
        expect(await count(long)).toBe(1);
      } finally {
        await long.close();
      }
    });

    it("the token may come from TAILPROBE_ADMIN_TOKEN, and a short one is refused naming where it came from", () => {
      expect(parseServeArgs([], { TAILPROBE_ADMIN_TOKEN: TOKEN })).toMatchObject({
        ok: true,
        value: { adminToken: TOKEN },
      });
      expect(parseServeArgs([], {})).toMatchObject({ ok: true, value: { adminToken: undefined } });
      expect(parseServeArgs([], { TAILPROBE_ADMIN_TOKEN: "short" })).toMatchObject({
        ok: false,
        error: expect.stringMatching(/TAILPROBE_ADMIN_TOKEN/),
      });
      expect(parseServeArgs(["--admin-token", "short"])).toMatchObject({
        ok: false,
        error: expect.stringMatching(/--admin-token/),
      });
    });
  });
});
