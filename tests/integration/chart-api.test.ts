// The chart endpoints on a real server: samples in through POST /api/samples,
// each endpoint's JSON shape and numbers out, and a 400 for every kind of bad query.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  CdfResponse,
  ClientsResponse,
  HeatmapResponse,
  HistogramResponse,
  TimeseriesResponse,
  StatsResponse,
} from "../../shared/contract/index.js";
import { QueryAbortedError } from "../../server/store/errors.js";
import { startInProcess } from "../helpers/in-process.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

describe.each(STORE_KINDS)("%s store", (kind) => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  // Aligned to 10 minutes so every bucket width used below starts at T0.
  const T0 = Math.floor((Date.now() - 3_600_000) / 600_000) * 600_000;
  const FIREFOX = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0";
  const RANGE = `from=${T0}&to=${T0 + 600_000 - 1}`;

  async function post(body: unknown, userAgent = FIREFOX) {
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": userAgent },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  }

  async function get<T>(pathAndQuery: string, status = 200): Promise<T> {
    const res = await fetch(`${server.url}${pathAndQuery}`);
    const body = (await res.json()) as T;
    expect(res.status, `${pathAndQuery} → ${JSON.stringify(body).slice(0, 200)}`).toBe(status);
    if (status === 200) expect(res.headers.get("cache-control")).toBe("no-store");
    return body;
  }

  beforeAll(async () => {
    // Targets B and T must be servers this deployment knows; naming them means nobody is asked.
    server = await startInProcess([
      "--db",
      await freshDb(kind, "chart-api"),
      "--peer",
      "B=http://127.0.0.1:9",
      "--peer",
      "T=http://127.0.0.1:9",
    ]);
    // xhr A: 1..100 ms, one a second from T0, plus 5 errors.
    // ws A: 2 ms, then a spike of 500 ms during minute 5, tab hidden for the last 10.
    // tcprtt A: 0.5 ms smoothed, 0.25 ms min RTT.
    const seq = { n: 0 };
    const s = (o: Record<string, unknown>) => ({ seq: seq.n++, target: "A", outcome: "ok", ...o });
    const samples = [
      ...Array.from({ length: 100 }, (_, i) => s({ t: T0 + i * 1000, method: "xhr", ms: i + 1, lateMs: i % 20 })),
      ...Array.from({ length: 5 }, (_, i) => s({ t: T0 + 200_000 + i, method: "xhr", ms: null, outcome: "error" })),
      ...Array.from({ length: 600 }, (_, i) =>
        s({
          t: T0 + i * 1000,
          method: "ws",
          ms: i >= 300 && i < 360 ? 500 : 2,
          visibleAtSend: i < 590,
          visibleAtReply: i < 590,
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) => s({ t: T0 + i * 1000, method: "tcprtt", ms: 0.5, minrtt: 0.25 })),
    ];
    await post({ clientId: "client_charts", sessionId: "session_charts", label: "mac", samples });
    await post(
      {
        clientId: "client_other",
        sessionId: "session_other",
        samples: [{ seq: 0, t: T0 + 1000, method: "jsonp", target: "B", ms: 7, outcome: "ok" }],
      },
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91",
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  describe("GET /api/stats with the chart filters", () => {
    it("keeps its shape and takes method, target, visible, maxLateMs and exclude", async () => {
      const all = await get<StatsResponse>(`/api/stats?${RANGE}`);
      expect(Object.keys(all).sort()).toEqual(["engines", "from", "rows", "timerResolutionMs", "to"]);
      expect(all.rows.map((r) => `${r.method}/${r.target}`)).toEqual([
        "xhr/A",
        "ws/A",
        "tcprtt/A",
        "tcpminrtt/A",
        "jsonp/B",
      ]);
      const ws = await get<StatsResponse>(`/api/stats?${RANGE}&method=ws&target=A`);
      expect(ws.rows).toHaveLength(1);
      expect(ws.rows[0]).toMatchObject({ count: 600, max: 500 });
      const noSpike = await get<StatsResponse>(`/api/stats?${RANGE}&method=ws&exclude=${T0 + 300_000}-${T0 + 359_999}`);
      expect(noSpike.rows[0]).toMatchObject({ count: 540, max: 2, p99: 2 });
      const visible = await get<StatsResponse>(`/api/stats?${RANGE}&method=ws&visible=1`);
      expect(visible.rows[0]!.count).toBe(590);
      const punctual = await get<StatsResponse>(`/api/stats?${RANGE}&method=xhr&maxLateMs=4`);
      expect(punctual.rows[0]).toMatchObject({ count: 25, failures: 5 }); // errors record no lateness
      const other = await get<StatsResponse>(`/api/stats?${RANGE}&client=${publicIdOf(server.store, "client_other")}`);
      expect(other.rows).toEqual([expect.objectContaining({ method: "jsonp", target: "B", count: 1, p50: 7 })]);
    });
  });

  describe("timeouts=1", () => {
    it("puts timeouts into the latency figures at their value, on every endpoint, and keeps them failures", async () => {
      // After RANGE, so the other tests' rows are untouched: 97 ok at 10 ms, 3 timeouts at 5 s.
      const from = T0 + 700_000;
      const samples = Array.from({ length: 100 }, (_, i) =>
        i % 33 === 32
          ? { seq: i, t: from + i * 1000, method: "xhr", target: "T", ms: 5000, outcome: "timeout" }
          : { seq: i, t: from + i * 1000, method: "xhr", target: "T", ms: 10, outcome: "ok" },
      );
      await post({ clientId: "client_timeouts", sessionId: "session_timeouts", samples });
      const q = `from=${from}&to=${from + 99_999}&target=T`;
      const okOnly = await get<StatsResponse>(`/api/stats?${q}`);
      expect(okOnly.rows[0]).toMatchObject({ count: 97, failures: 3, p99: 10, max: 10 });
      const tail = await get<StatsResponse>(`/api/stats?${q}&timeouts=1`);
      expect(tail.rows[0]).toMatchObject({ count: 100, failures: 3, p90: 10, p99: 5000, max: 5000 });
      const h = await get<HistogramResponse>(`/api/histogram?${q}&timeouts=1&binsPerDecade=1`);
      expect(h.series[0]).toMatchObject({ count: 100, failures: 3 });
      expect(h.series[0]!.counts.at(-1)).toBe(3);
      const c = await get<CdfResponse>(`/api/cdf?${q}&timeouts=1`);
      expect(c.series[0]!.points.at(-1)).toEqual([5000, 1]);
      const ts = await get<TimeseriesResponse>(`/api/timeseries?${q}&timeouts=1&bucketMs=100000`);
      expect(ts.series[0]!.max.filter((m) => m !== null)).toEqual([5000]);
      const hm = await get<HeatmapResponse>(`/api/heatmap?${q}&timeouts=1&bucketMs=100000&binsPerDecade=1`);
      expect(hm.series[0]!.counts.flat().reduce((a, b) => a + b, 0)).toBe(100);
      await get(`/api/stats?${q}&timeouts=yes`, 400);
    });
  });

  describe("GET /api/histogram", () => {
    it("answers log bins shared by all series, counts per series", async () => {
      const h = await get<HistogramResponse>(`/api/histogram?${RANGE}&target=A&binsPerDecade=1`);
      expect(Object.keys(h).sort()).toEqual(["binsPerDecade", "edges", "from", "series", "to"]);
      expect(h).toMatchObject({ from: T0, to: T0 + 599_999, binsPerDecade: 1 });
      // 0.25 ms … 500 ms: decades [0.1, 1), [1, 10), [10, 100), [100, 1000).
      expect(h.edges.map((e) => Number(e.toPrecision(6)))).toEqual([0.1, 1, 10, 100, 1000]);
      const by = Object.fromEntries(h.series.map((s) => [s.method, s]));
      expect(by.xhr).toMatchObject({ target: "A", count: 100, failures: 5, counts: [0, 9, 90, 1] });
      expect(by.ws!.counts).toEqual([0, 540, 0, 60]);
      expect(by.tcprtt!.counts).toEqual([10, 0, 0, 0]);
      expect(by.tcpminrtt!.counts).toEqual([10, 0, 0, 0]);
    });

    it("names the kernel's min RTT as a series of its own", async () => {
      const h = await get<HistogramResponse>(`/api/histogram?${RANGE}&method=tcpminrtt&binsPerDecade=1`);
      expect(h.series.map((s) => [s.method, s.target, s.count])).toEqual([["tcpminrtt", "A", 10]]);
      expect(h.edges.map((e) => Number(e.toPrecision(6)))).toEqual([0.1, 1]);
    });
  });

  describe("GET /api/cdf", () => {
    it("answers exact points and percentile markers", async () => {
      const c = await get<CdfResponse>(`/api/cdf?${RANGE}&method=xhr`);
      expect(Object.keys(c).sort()).toEqual(["from", "series", "to"]);
      const s = c.series[0]!;
      expect(s).toMatchObject({ method: "xhr", target: "A", count: 100 });
      expect(s.points).toHaveLength(100);
      expect(s.points[0]).toEqual([1, 0.01]);
      expect(s.points[98]).toEqual([99, 0.99]);
      expect(s.points[99]).toEqual([100, 1]);
      expect(s.markers).toEqual([
        { p: 10, ms: 10 },
        { p: 50, ms: 50 },
        { p: 90, ms: 90 },
        { p: 99, ms: 99 },
        { p: 99.9, ms: 100 },
        { p: 99.99, ms: 100 },
      ]);
    });
  });

  describe("GET /api/timeseries", () => {
    it("answers p50/p90/p99/max and failures per aligned bucket", async () => {
      const ts = await get<TimeseriesResponse>(`/api/timeseries?${RANGE}&bucketMs=60000&target=A`);
      expect(Object.keys(ts).sort()).toEqual(["bucketMs", "from", "series", "t", "to"]);
      expect(ts.bucketMs).toBe(60_000);
      expect(ts.t).toEqual(Array.from({ length: 10 }, (_, i) => T0 + i * 60_000));
      const ws = ts.series.find((s) => s.method === "ws")!;
      expect(Object.keys(ws).sort()).toEqual(["count", "failures", "max", "method", "p50", "p90", "p99", "target"]);
      expect(ws.count).toEqual(new Array(10).fill(60));
      expect(ws.p50).toEqual([2, 2, 2, 2, 2, 500, 2, 2, 2, 2]);
      const xhr = ts.series.find((s) => s.method === "xhr")!;
      expect(xhr.count).toEqual([60, 40, 0, 0, 0, 0, 0, 0, 0, 0]);
      expect(xhr.failures).toEqual([0, 0, 0, 5, 0, 0, 0, 0, 0, 0]);
      expect(xhr.p50.slice(0, 3)).toEqual([30, 80, null]);
      expect(xhr.p99.slice(0, 2)).toEqual([60, 100]);
      expect(xhr.max.slice(0, 3)).toEqual([60, 100, null]);
    });

    it("chooses the bucket width from the range when not given", async () => {
      const ts = await get<TimeseriesResponse>(`/api/timeseries?${RANGE}`);
      expect(ts.bucketMs).toBe(2000); // 10 min / 300 buckets
      expect(ts.t).toHaveLength(300);
    });
  });

  describe("GET /api/heatmap", () => {
    it("answers counts per time bucket × log bin", async () => {
      const hm = await get<HeatmapResponse>(`/api/heatmap?${RANGE}&bucketMs=300000&binsPerDecade=1&method=ws`);
      expect(Object.keys(hm).sort()).toEqual(["binsPerDecade", "bucketMs", "edges", "from", "series", "t", "to"]);
      expect(hm.t).toEqual([T0, T0 + 300_000]);
      expect(hm.edges.map((e) => Number(e.toPrecision(6)))).toEqual([1, 10, 100, 1000]);
      expect(hm.series).toEqual([
        {
          method: "ws",
          target: "A",
          counts: [
            [300, 0, 0],
            [240, 0, 60],
          ],
        },
      ]);
    });
  });

  describe("GET /api/clients", () => {
    it("lists the clients by public id with label and browser family, never clientId or user agent", async () => {
      const res = await fetch(`${server.url}/api/clients`);
      const text = await res.text();
      const { clients } = JSON.parse(text) as ClientsResponse;
      const mac = clients.find((c) => c.id === publicIdOf(server.store, "client_charts"))!;
      expect(mac).toEqual({
        id: expect.any(String),
        label: "mac",
        browser: "Firefox",
        sessions: 1,
        firstSeen: expect.any(Number),
        lastSeen: expect.any(Number),
      });
      expect(mac.lastSeen).toBeGreaterThanOrEqual(mac.firstSeen);
      const other = clients.find((c) => c.id === publicIdOf(server.store, "client_other"))!;
      expect(other).toMatchObject({ label: null, browser: "Edge" });
      for (const secret of ["client_charts", "client_other", FIREFOX, "127.0.0.1", "Windows"])
        expect(text).not.toContain(secret);
    });

    it("?client= takes a public id; a clientId or an unknown id matches nothing", async () => {
      const byPublic = await get<StatsResponse>(
        `/api/stats?${RANGE}&client=${publicIdOf(server.store, "client_other")}`,
      );
      expect(byPublic.rows).toHaveLength(1);
      expect((await get<StatsResponse>(`/api/stats?${RANGE}&client=client_other`)).rows).toEqual([]);
      expect((await get<StatsResponse>(`/api/stats?${RANGE}&client=AAAAAAAAAAAAAAAA`)).rows).toEqual([]);
    });
  });

  describe("bad queries", () => {
    const BAD: [string, string][] = [
      ["unknown parameter", "/api/histogram?bins=3"],
      ["from not an integer", "/api/cdf?from=yesterday"],
      ["from after to", `/api/timeseries?from=${T0 + 10}&to=${T0}`],
      ["from in the future with no to", `/api/heatmap?from=${Date.now() + 3_600_000}`],
      ["unknown method", "/api/histogram?method=xhr,carrier-pigeon"],
      ["bad target", "/api/cdf?target=A%20B"],
      ["bad client", "/api/stats?client=x"],
      ["visible not 0/1", "/api/timeseries?visible=yes"],
      ["negative maxLateMs", "/api/heatmap?maxLateMs=-5"],
      ["exclude window backwards", "/api/stats?exclude=20-10"],
      ["exclude not a window", "/api/histogram?exclude=spike"],
      ["too many exclude windows", `/api/cdf?exclude=${Array.from({ length: 21 }, (_, i) => `${i}-${i}`).join(",")}`],
      ["binsPerDecade 0", "/api/histogram?binsPerDecade=0"],
      ["binsPerDecade 101", "/api/heatmap?binsPerDecade=101"],
      ["bucketMs under a second", "/api/timeseries?bucketMs=10"],
      ["a parameter twice", `/api/histogram?from=${T0}&from=${T0}`],
      ["clients takes no parameters", "/api/clients?from=1"],
      // Past 2^53 a number rounds silently (-9999999999999999 reads as -10000000000000000).
      ["from beyond 2^53", "/api/stats?from=-9999999999999999"],
      ["to beyond 2^53", "/api/histogram?to=9007199254740993"],
      ["an exclude window beyond 2^53", "/api/stats?exclude=0-9999999999999999"],
      ["maxLateMs beyond 2^53", "/api/stats?maxLateMs=9999999999999999"],
    ];
    it.each(BAD)("%s → 400 INVALID_QUERY", async (_name, url) => {
      const body = await get<{ error: string; code: string }>(url, 400);
      expect(body.code).toBe("INVALID_QUERY");
      expect(body.error.length).toBeGreaterThan(3);
    });

    it("too many time buckets → 400 QUERY_TOO_LARGE", async () => {
      for (const ep of ["timeseries", "heatmap"]) {
        const body = await get<{ error: string; code: string }>(
          `/api/${ep}?from=${T0}&to=${T0 + 3_600_000}&bucketMs=1000`,
          400,
        );
        expect(body.code).toBe("QUERY_TOO_LARGE");
        expect(body.error).toMatch(/3601 time buckets/);
      }
    });

    it("too many heatmap cells → 400 QUERY_TOO_LARGE", async () => {
      const body = await get<{ code: string }>(
        `/api/heatmap?from=${T0}&to=${T0 + 1999 * 1000}&bucketMs=1000&binsPerDecade=100`,
        400,
      );
      expect(body.code).toBe("QUERY_TOO_LARGE");
    });

    it("leaves the server answering", async () => {
      const res = await fetch(`${server.url}/echo`);
      expect(res.status).toBe(200);
      await get<StatsResponse>(`/api/stats?${RANGE}`);
    });
  });

  describe("a long query", () => {
    // 100k rows loaded first: seconds on PostgreSQL on a busy machine (about 30k rows/s per connection).
    it("leaves /echo answering while it runs", { timeout: 90_000 }, async () => {
      // 100k samples after the other tests' range, straight through the store. The
      // first goes through /api/samples as a page's would, so the server knows the
      // client by its public id at once (a write the server did not see is found
      // only at the directory's next refresh, up to a second later).
      const from = T0 + 700_000;
      await post({
        clientId: "client_bulk",
        sessionId: "session_bulk",
        samples: [{ seq: 0, t: from, method: "xhr", target: "A", ms: 1, outcome: "ok" }],
      });
      for (let b = 0; b < 100; b++) {
        await server.store.insertBatch(
          {
            clientId: "client_bulk",
            sessionId: "session_bulk",
            samples: Array.from({ length: 1000 }, (_, i) => ({
              seq: b * 1000 + i,
              t: from + b * 1000 + i,
              method: "xhr" as const,
              target: "A",
              ms: 1 + ((b * 1000 + i) % 50),
              outcome: "ok" as const,
            })),
          },
          { userAgent: null, receivedAtMs: Date.now() },
        );
      }
      const order: string[] = [];
      // A lateness limit that is no rollup class: the exact raw path, which reads all 100k rows in slices.
      const query = fetch(
        `${server.url}/api/histogram?from=${from}&client=${publicIdOf(server.store, "client_bulk")}&maxLateMs=59999`,
      ).then(async (r) => {
        order.push("query");
        return (await r.json()) as HistogramResponse;
      });
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${server.url}/echo`);
        expect(res.status).toBe(200);
        await res.text();
        order.push("echo");
      }
      const h = await query;
      expect(h.series[0]?.count, JSON.stringify(h).slice(0, 300)).toBe(100_000);
      // What the slicing guarantees: the event loop is free between slices, so an
      // echo sent while the query reads is answered before the query is done
      // (a query run in one go would hold every echo until it finished).
      expect(order).toHaveLength(6);
      expect(order[0]).toBe("echo");
    });

    it("stops the queries of askers that hang up mid-query, and answers the next asker", async () => {
      const from = T0 + 700_000;
      const client = publicIdOf(server.store, "client_bulk");
      // A lateness limit that is no rollup class: the exact raw path over 100k rows, many slices long.
      const filterQs = `from=${from}&client=${client}&maxLateMs=59999`;
      // Watch the store from the server's side: which queries it started, and how each ended.
      const cdf = server.store.cdf;
      const started: { settled: boolean; outcome: Promise<unknown> }[] = [];
      server.store.cdf = (f, o) => {
        const p = cdf(f, o);
        const entry = {
          settled: false,
          outcome: p.then(
            () => "answered",
            (e: unknown) => e,
          ),
        };
        void entry.outcome.then(() => (entry.settled = true));
        started.push(entry);
        return p;
      };
      try {
        const controllers = [0, 1, 2, 3, 4].map(() => new AbortController());
        const pending = controllers.map((c) =>
          fetch(`${server.url}/api/cdf?${filterQs}`, { signal: c.signal }).catch((e: unknown) => e),
        );
        // Bounded wait until the server has begun all five (two read, three wait for a reader).
        for (let i = 0; i < 500 && started.length < 5; i++) await new Promise((res) => setTimeout(res, 10));
        expect(started).toHaveLength(5);
        const pendingAtAbort = started.filter((q) => !q.settled);
        for (const c of controllers) c.abort();
        await Promise.all(pending);
        const outcomes = await Promise.all(pendingAtAbort.map((q) => q.outcome));
        // Readers are two and each query reads 100k rows: the queued ones at least were still running.
        expect(pendingAtAbort.length).toBeGreaterThanOrEqual(3);
        for (const o of outcomes) expect(o).toBeInstanceOf(QueryAbortedError);
      } finally {
        server.store.cdf = cdf;
      }
      // The abandoned queries gave their readers back: the next asker is answered in full.
      const c = await get<CdfResponse>(`/api/cdf?${filterQs}`);
      expect(c.series[0]!.count).toBe(100_000);
    });
  });
});
