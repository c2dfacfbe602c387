// Incidents and the status page on both stores: incidents stored, replaced
// and listed by overlap (and 400 for a bad range); /api/status's uptime and
// per-day figures checked against brute force over the samples stored, its
// incidents and state public ones only, and nothing private anywhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  incidentsResponseSchema,
  parseWith,
  type Incident,
  type Sample,
  statusResponseSchema,
  type StatusResponse,
} from "../../shared/contract/index.js";
import { percentileSorted } from "../../shared/stats.js";
import { mulberry32 as prng } from "../../shared/prng.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const LABEL = "secret-desk-label";
const CLIENTS = ["status_client_one", "status_client_two"];

const incident = (patch: Partial<Incident>): Incident => ({
  id: "A.B.down.1",
  target: "B",
  kind: "down",
  start: 1,
  end: 2,
  verdict: "server",
  summary: "B down: failing from 2 of 2 clients and from A's own probe since 05:14:07 UTC",
  methods: ["jsonp", "peerhttp", "ws", "xhr"],
  clients: [],
  evidence: ["A's own probe: down: 4 of 4 probes failed (peerhttp error network)"],
  peak: { affected: 3, reporting: 3, failureShare: 1, latencyMs: null, typicalMs: null },
  observer: "A",
  ...patch,
});

describe.each(STORE_KINDS)("%s store", (kind) => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  const now = Date.now();
  const today = Math.floor(now / DAY) * DAY;

  beforeAll(async () => {
    server = await startInProcess(["--name", "A", "--db", await freshDb(kind, "incidents_status")]);
  });
  afterAll(async () => {
    await server?.close();
  });

  describe("incidents", () => {
    const T = today - 20 * DAY;
    const stored = [
      incident({ id: "i1", start: T, end: T + HOUR }),
      incident({ id: "i2", start: T + 2 * HOUR, end: null, kind: "degraded", verdict: "client", clients: ["pubA"] }),
      incident({ id: "i3", start: T + 5 * HOUR, end: T + 6 * HOUR, observer: "B", target: "A" }),
    ];

    beforeAll(async () => {
      for (const i of stored) await server.store.incidents.saveIncident(i);
      // Replaced by id: the first is written open, then closed.
      await server.store.incidents.saveIncident({ ...stored[0]!, end: null, summary: "first" });
      await server.store.incidents.saveIncident(stored[0]!);
    });

    it("lists those that overlap the range, oldest first, as stored; an open one overlaps everything after its start", async () => {
      const res = await fetch(`${server.url}/api/incidents?from=${T + HOUR / 2}&to=${T + 10 * HOUR}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const body = parseWith(incidentsResponseSchema, await res.json());
      expect(body.ok).toBe(true);
      if (!body.ok) return;
      expect(body.value.incidents).toEqual(stored);
      expect(body.value.truncated).toBe(false);
      const later = await server.store.incidents.incidentsBetween(T + 7 * HOUR, T + 8 * HOUR, 10);
      expect(later.incidents.map((i) => i.id)).toEqual(["i2"]);
      const before = await server.store.incidents.incidentsBetween(T - 2 * HOUR, T - 1, 10);
      expect(before.incidents).toEqual([]);
      const edge = await server.store.incidents.incidentsBetween(T + HOUR, T + HOUR, 10);
      expect(edge.incidents.map((i) => i.id)).toEqual(["i1"]);
    });

    it("keeps the newest when more match than asked, and says so", async () => {
      const r = await server.store.incidents.incidentsBetween(T, T + 10 * HOUR, 2);
      expect(r.incidents.map((i) => i.id)).toEqual(["i2", "i3"]);
      expect(r.truncated).toBe(true);
    });

    it("finds an observer's open incidents (to follow them after a restart)", async () => {
      expect((await server.store.incidents.openIncidents("A")).map((i) => i.id)).toEqual(["i2"]);
      expect(await server.store.incidents.openIncidents("B")).toEqual([]);
    });

    it("answers a bad range with 400 INVALID_QUERY, naming the problem", async () => {
      for (const [query, message] of [
        [`from=${T + 1}&to=${T}`, "from must not be after to"],
        ["from=yesterday", "must be an integer"],
        ["from=-5", ""],
        [`from=${now + DAY}`, "from must not be in the future"],
        ["since=5", ""],
        ["from=1&from=2", ""],
      ] as const) {
        const res = await fetch(`${server.url}/api/incidents?${query}`);
        const body = (await res.json()) as { code: string; error: string };
        expect(res.status, query).toBe(400);
        expect(body.code, query).toBe("INVALID_QUERY");
        expect(body.error, query).toContain(message);
      }
    });
  });

  describe("status", () => {
    // Three days of probes to A and B from two clients: browser methods and the servers' own.
    const samples = new Map<string, Sample[]>(CLIENTS.map((c) => [c, []]));
    const rand = prng(39);
    const days = [today - 2 * DAY, today - DAY, today].filter((d) => d + 10 * 60_000 < now);
    const methods = ["xhr", "jsonp", "ws", "peerhttp"] as const;
    for (const c of CLIENTS)
      for (const day of days)
        for (const target of ["A", "B"])
          for (const method of methods) {
            const span = Math.min(DAY, now - 60_000 - day);
            for (let k = 0; k < 60; k++) {
              const list = samples.get(c)!;
              const t = day + Math.floor(rand() * span);
              const r = rand();
              const base = target === "A" ? 1.2 : 20;
              const s: Sample =
                r < 0.05
                  ? { seq: list.length, t, method, target, ms: 5000, outcome: "timeout" }
                  : r < 0.08
                    ? { seq: list.length, t, method, target, ms: null, outcome: "error", reason: "network" }
                    : r < 0.1
                      ? { seq: list.length, t, method, target, ms: null, outcome: "skipped", reason: "frozen" }
                      : {
                          seq: list.length,
                          t,
                          method,
                          target,
                          ms: Math.round(base * Math.exp(rand()) * 1000) / 1000,
                          outcome: "ok",
                        };
              list.push(s);
            }
          }
    let status: StatusResponse;
    let statusText: string;

    beforeAll(async () => {
      for (const [c, list] of samples)
        for (let i = 0; i < list.length; i += 500)
          await server.store.insertBatch(
            { clientId: c, sessionId: `${c}_session`, label: LABEL, samples: list.slice(i, i + 500) },
            { userAgent: "HeadlessChrome", receivedAtMs: now },
          );
      await server.store.incidents.saveIncident(
        incident({ id: "b-down", start: today - DAY + 5 * HOUR, end: today - DAY + 7 * HOUR }),
      );
      const aboutOneClient = { clients: [publicIdOf(server.store, CLIENTS[0]!)], kind: "degraded" as const };
      await server.store.incidents.saveIncident(
        incident({ ...aboutOneClient, id: "a-client", target: "A", start: now - HOUR, end: null, verdict: "client" }),
      );
      await server.store.incidents.saveIncident(
        incident({ ...aboutOneClient, id: "b-net", start: now - 3 * HOUR, end: now - 2 * HOUR, verdict: "network" }),
      );
      const res = await fetch(`${server.url}/api/status`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
      statusText = await res.text();
      const parsed = parseWith(statusResponseSchema, JSON.parse(statusText));
      if (!parsed.ok) throw new Error(parsed.error);
      status = parsed.value;
    });

    const all = () => [...samples.values()].flat();
    const judged = (s: Sample) => s.outcome !== "skipped";

    it("has a day per bar over 90 days, each day's probes and uptime exact, p50 and p99 within ±1 % of brute force", () => {
      expect(status.servers.map((s) => s.name)).toEqual(["A", "B"]);
      for (const srv of status.servers) {
        expect(srv.days).toHaveLength(90);
        expect(srv.days.at(-1)!.start).toBe(today);
        for (const d of srv.days) {
          const of = all().filter((s) => s.target === srv.name && s.t >= d.start && s.t < d.start + DAY && judged(s));
          const ok = of.filter((s) => s.outcome === "ok");
          expect(d.probes, `${srv.name} ${d.start}`).toBe(of.length);
          expect(d.uptime).toBe(of.length === 0 ? null : ok.length / of.length);
          const lat = Float64Array.from(ok.filter((s) => s.method !== "peerhttp").map((s) => s.ms!)).sort();
          for (const [p, got] of [
            [50, d.p50],
            [99, d.p99],
          ] as const) {
            const exact = percentileSorted(lat, p);
            if (exact === null) expect(got).toBeNull();
            else expect(Math.abs(got! - exact) / exact).toBeLessThanOrEqual(0.01);
          }
        }
      }
    });

    it("uptime over 24 h, 7 and 90 days as brute force says", () => {
      for (const srv of status.servers) {
        const mine = all().filter((s) => s.target === srv.name && judged(s));
        const share = (xs: Sample[]) => xs.filter((s) => s.outcome === "ok").length / xs.length;
        expect(srv.uptime["90d"]).toBeCloseTo(share(mine), 12);
        expect(srv.uptime["7d"]).toBeCloseTo(share(mine), 12);
        const day = mine.filter((s) => s.t >= status.generatedAt - DAY);
        expect(srv.uptime["24h"]).toBeCloseTo(share(day), 12);
      }
    });

    it("lists the server's own incidents only, counts their downtime per day, and keeps one client's path out", () => {
      const b = status.servers.find((s) => s.name === "B")!;
      const a = status.servers.find((s) => s.name === "A")!;
      // Newest first: yesterday's outage, then "i1" of the incidents' tests, twenty days ago ("b-net" is one client's path).
      expect(b.incidents.map((i) => i.id)).toEqual(["b-down", "i1"]);
      expect(b.days.at(-2)).toMatchObject({ downMs: 2 * HOUR, incidents: 1 });
      expect(b.days.at(-1)).toMatchObject({ downMs: 0, incidents: 0 });
      // A's: "i3", as B saw it; not "a-client", one client's own path.
      expect(a.incidents.map((i) => i.id)).toEqual(["i3"]);
      // A's only open incident is about one client's path: A is not degraded for the public.
      expect(a.state).not.toBe("degraded");
    });

    it("shows no client, label, address or browser; /status is HTML with its stylesheet, read-only", async () => {
      const res = await fetch(`${server.url}/status`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("content-security-policy")).toContain("style-src 'self'");
      const html = await res.text();
      expect(html).toContain("B down: failing from 2 of 2 clients and from A&#39;s own probe");
      expect(html).toContain('href="/status.css"');
      const secrets = [
        ...CLIENTS,
        ...CLIENTS.map((c) => publicIdOf(server.store, c)),
        LABEL,
        "HeadlessChrome",
        "127.0.0.1",
      ];
      for (const text of [html, statusText]) for (const s of secrets) expect(text).not.toContain(s);
      const css = await fetch(`${server.url}/status.css`);
      expect(css.headers.get("content-type")).toMatch(/^text\/css/);
      expect(await css.text()).toContain(".badge.state-up");
      for (const method of ["POST", "PUT", "DELETE"]) {
        const r = await fetch(`${server.url}/status`, { method });
        expect(r.status, method).toBe(404);
        const api = await fetch(`${server.url}/api/status`, { method });
        expect(api.status, method).toBe(404);
      }
    });
  });
});
