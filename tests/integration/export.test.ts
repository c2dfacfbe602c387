// GET /api/samples.csv, /api/samples.ndjson and /metrics on a small, known
// set of samples: the same filters as /api/stats, exact rows and values, and
// Prometheus text that a real parser reads and whose counts agree with /api/stats.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_COLUMNS } from "../../server/query/sample-export.js";
import { LATENCY_BUCKETS_S } from "../../server/query/metrics-source.js";
import { bucketIndex, bucketUpper } from "../../shared/rollup.js";
import type { StatsResponse } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { runPythonScript } from "../helpers/python.js";
import { tempDir } from "../../testkit/server-process.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { executeOn, freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

describe.each(STORE_KINDS)("%s store", (kind) => {
  interface PromFamily {
    name: string;
    type: string;
    samples: { name: string; labels: Record<string, string>; value: number }[];
  }

  let server: Awaited<ReturnType<typeof startInProcess>>;
  const T0 = Date.now() - 600_000;

  const samples = [
    {
      seq: 0,
      t: T0,
      method: "xhr",
      target: "A",
      ms: 12.5,
      outcome: "ok",
      lateMs: 1,
      visibleAtSend: true,
      visibleAtReply: false,
      serverMs: 0.25,
    },
    { seq: 1, t: T0 + 1000, method: "xhr", target: "B", ms: 300, outcome: "ok", fresh: true },
    { seq: 2, t: T0 + 2000, method: "ws", target: "A", ms: 5000, outcome: "timeout" },
    { seq: 3, t: T0 + 3000, method: "xhr", target: "A", ms: null, outcome: "error", reason: "http-5xx" },
    { seq: 4, t: T0 + 4000, method: "ws", target: "A", ms: 0.4, outcome: "ok" },
    { seq: 5, t: T0 + 5000, method: "ws", target: "A", ms: 2, outcome: "ok" },
    { seq: 6, t: T0 + 6000, method: "ping", target: "A", ms: 31, outcome: "ok" },
    { seq: 7, t: T0 + 7000, method: "xhr", target: "A", ms: null, outcome: "skipped", reason: "frozen" },
  ];

  /**
   * Outside the exports' range, for /metrics over all time: samples days, hours
   * and minutes old (read from day, hour and 5-minute rollups) and seconds old
   * (the raw edge), a tcprtt baseline with its kernel min RTT (the tcpminrtt
   * series), and latencies on and beside the `le` bounds.
   */
  const NOW = Date.now();
  const spread = [
    { t: NOW - 3 * 86_400_000, method: "ws", target: "A", ms: 0.5, outcome: "ok" },
    { t: NOW - 3 * 86_400_000 + 1, method: "ws", target: "A", ms: 0.999, outcome: "ok" },
    { t: NOW - 7_200_000, method: "ws", target: "A", ms: 1, outcome: "ok" },
    { t: NOW - 7_200_000 + 1, method: "ws", target: "A", ms: 24.9, outcome: "ok" },
    { t: NOW - 7_200_000 + 2, method: "tcprtt", target: "A", ms: 0.8, outcome: "ok", minrtt: 0.31 },
    { t: NOW - 3_600_000, method: "tcprtt", target: "A", ms: 12, outcome: "ok", minrtt: 0.3 },
    { t: NOW - 3_600_000 + 1, method: "tcprtt", target: "A", ms: 5000, outcome: "timeout" },
    { t: NOW - 400_000, method: "xhr", target: "B", ms: 2600, outcome: "ok" },
    { t: NOW - 5_000, method: "xhr", target: "B", ms: 99.5, outcome: "ok" },
    { t: NOW - 4_000, method: "ws", target: "A", ms: 31_000, outcome: "ok" },
    {
      t: NOW - 3_000,
      method: "best2",
      target: "A+B",
      ms: 4,
      outcome: "ok",
      winner: "ws",
      otherMs: 9,
      otherOutcome: "ok",
    },
  ].map((s, seq) => ({ seq, ...s }));

  beforeAll(async () => {
    // B is a named peer (never contacted): samples may only name servers of the deployment.
    server = await startInProcess(["--db", await freshDb(kind, "export"), "--peer", "B=http://127.0.0.1:9"]);
    for (const [sessionId, batch] of [
      ["s-export-1", samples],
      ["s-export-2", spread],
    ] as const) {
      const res = await fetch(`${server.url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ clientId: "c-export-1", sessionId, samples: batch }),
      });
      expect(res.status).toBe(200);
    }
    // A database from before the reason vocabulary holds free text, and exports read it back as stored:
    // here one with a comma and quotes, which the CSV must quote.
    await executeOn(server, "UPDATE reasons SET text = ? WHERE text = 'http-5xx'", ['http-503, "busy"']);
  });
  afterAll(async () => {
    await server.close();
  });

  const range = `from=${T0 - 1}&to=${T0 + 60_000}`;

  /** A CSV line split by RFC 4180 rules (quoted fields may hold commas and doubled quotes). */
  function csvSplit(line: string): string[] {
    const out: string[] = [];
    let cur = "";
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (quoted) {
        if (ch === '"' && line[i + 1] === '"') (cur += '"'), i++;
        else if (ch === '"') quoted = false;
        else cur += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ",") out.push(cur), (cur = "");
      else cur += ch;
    }
    out.push(cur);
    return out;
  }

  describe("GET /api/samples.csv", () => {
    it("a header line, then one line per sample in time order, with the wire names and decoded flags", async () => {
      const res = await fetch(`${server.url}/api/samples.csv?${range}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
      const lines = (await res.text()).split("\n");
      expect(lines.pop()).toBe("");
      expect(lines[0]).toBe(EXPORT_COLUMNS.join(","));
      expect(lines).toHaveLength(samples.length + 1);
      const rows = lines.slice(1).map((l) => Object.fromEntries(csvSplit(l).map((v, i) => [EXPORT_COLUMNS[i], v])));
      expect(rows.map((r) => Number(r.seq))).toEqual(samples.map((s) => s.seq));
      expect(rows[0]).toMatchObject({
        client: publicIdOf(server.store, "c-export-1"),
        sessionId: "s-export-1",
        ms: "12.5",
        visibleAtSend: "true",
        visibleAtReply: "false",
        froze: "",
        serverMs: "0.25",
        lateMs: "1",
      });
      expect(rows[1]).toMatchObject({ fresh: "true", visibleAtSend: "" });
      expect(rows[3]).toMatchObject({ ms: "", outcome: "error", reason: 'http-503, "busy"' });
    });

    it("takes the /api/stats filters", async () => {
      const text = await (await fetch(`${server.url}/api/samples.csv?${range}&method=ws&target=A`)).text();
      expect(text.trim().split("\n")).toHaveLength(1 + 3);
      const none = await (await fetch(`${server.url}/api/samples.csv?${range}&client=c-nobody`)).text();
      expect(none).toBe(`${EXPORT_COLUMNS.join(",")}\n`);
    });

    it("answers a bad filter with 400 and a code", async () => {
      const res = await fetch(`${server.url}/api/samples.csv?from=9&to=1`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "INVALID_QUERY" });
      expect((await fetch(`${server.url}/api/samples.ndjson?method=carrier-pigeon`)).status).toBe(400);
    });
  });

  describe("GET /api/samples.ndjson", () => {
    it("one object per sample and nothing else, each with the export's columns; what the file is in its headers", async () => {
      const res = await fetch(`${server.url}/api/samples.ndjson?${range}`);
      expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
      expect(res.headers.get("tailprobe-export")).toBe("samples; version=1");
      expect(res.headers.get("tailprobe-from")).toBe(String(T0 - 1));
      expect(res.headers.get("tailprobe-to")).toBe(String(T0 + 60_000));
      expect(res.headers.get("tailprobe-columns")).toBe(EXPORT_COLUMNS.join(","));
      const text = await res.text();
      expect(text.endsWith("\n")).toBe(true);
      const lines = text
        .slice(0, -1)
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(samples.length);
      for (const line of lines) expect(Object.keys(line)).toEqual([...EXPORT_COLUMNS]);
      expect(lines.map((l) => l.seq)).toEqual(samples.map((s) => s.seq));
      expect(lines[0]).toMatchObject({
        t: T0,
        method: "xhr",
        ms: 12.5,
        visibleAtSend: true,
        visibleAtReply: false,
        froze: null,
        serverMs: 0.25,
      });
      expect(lines[2]).toMatchObject({ method: "ws", ms: 5000, outcome: "timeout" });
    });

    it("an empty selection is an empty body; the CSV keeps its column line", async () => {
      const ndjson = await fetch(`${server.url}/api/samples.ndjson?${range}&client=c-nobody`);
      expect(ndjson.headers.get("tailprobe-columns")).toBe(EXPORT_COLUMNS.join(","));
      expect(await ndjson.text()).toBe("");
      const csv = await fetch(`${server.url}/api/samples.csv?${range}&client=c-nobody`);
      expect(csv.headers.get("tailprobe-export")).toBe("samples; version=1");
      expect(await csv.text()).toBe(`${EXPORT_COLUMNS.join(",")}\n`);
    });
  });

  describe("pandas", () => {
    it("reads the CSV as docs/api.md shows, with numeric latencies and the stats' p99", async () => {
      const file = path.join(tempDir(), "samples.csv");
      fs.writeFileSync(file, await (await fetch(`${server.url}/api/samples.csv?${range}`)).text());
      const r = runPythonScript("read_export.py", [file]) as {
        rows: number;
        columns: string[];
        dtypes: Record<string, string>;
        p99: Record<string, number>;
      };
      expect(r.rows).toBe(samples.length);
      expect(r.columns).toEqual([...EXPORT_COLUMNS]);
      expect(r.dtypes).toMatchObject({ t: "datetime64[ns]", ms: "float64", seq: "int64", serverMs: "float64" });
      const stats = (await (await fetch(`${server.url}/api/stats?${range}`)).json()) as StatsResponse;
      for (const row of stats.rows.filter((x) => x.count > 0))
        expect(r.p99[`${row.method} ${row.target}`]).toBe(row.p99);
    });
  });

  /** Every stored sample's (method, target, latency) as /metrics sees it: ok latencies, the tcprtt rows' min RTT as tcpminrtt. */
  function okLatencies(): Map<string, number[]> {
    const out = new Map<string, number[]>();
    const add = (method: string, target: string, ms: number) => {
      const key = `${method} ${target}`;
      out.set(key, [...(out.get(key) ?? []), ms]);
    };
    for (const s of [...samples, ...spread] as {
      method: string;
      target: string;
      ms: number | null;
      outcome: string;
      minrtt?: number;
    }[]) {
      if (s.outcome === "ok" && s.ms !== null) add(s.method, s.target, s.ms);
      if (s.minrtt !== undefined) add("tcpminrtt", s.target, s.minrtt);
    }
    return out;
  }

  describe("GET /metrics", () => {
    it("parses with the Prometheus client's parser, and its counts agree with /api/stats over all time", async () => {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).toContain("# TYPE tailprobe_latency_seconds histogram");
      const families = runPythonScript("parse_metrics.py", [], text) as PromFamily[];
      const latency = families.find((f) => f.name === "tailprobe_latency_seconds");
      // The client names a counter family without its _total suffix.
      const outcomes = families.find((f) => f.name === "tailprobe_samples");
      expect(latency?.type).toBe("histogram");
      expect(outcomes?.type).toBe("counter");
      const of = (name: string, labels: Record<string, string>) =>
        latency!.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

      // No range: /api/stats over everything stored up to now, as /metrics.
      const stats = (await (await fetch(`${server.url}/api/stats`)).json()) as StatsResponse;
      const exact = okLatencies();
      // Every series /api/stats reports, the derived kernel min RTT included, and no other.
      expect(stats.rows.map((r) => `${r.method} ${r.target}`).sort()).toEqual(
        [...new Set(outcomes!.samples.map((m) => `${m.labels.method} ${m.labels.server}`))].sort(),
      );
      expect(stats.rows.some((r) => r.method === "tcpminrtt" && r.target === "A" && r.count === 2)).toBe(true);
      expect(stats.rows.reduce((n, r) => n + r.count, 0)).toBe([...exact.values()].reduce((n, v) => n + v.length, 0));
      for (const row of stats.rows) {
        const series = { method: row.method, server: row.target };
        const count = (outcome: string) =>
          outcomes!.samples.find(
            (m) => m.labels.method === row.method && m.labels.server === row.target && m.labels.outcome === outcome,
          )?.value;
        expect(count("ok")).toBe(row.count);
        expect(count("timeout")! + count("error")!).toBe(row.failures);
        expect(count("skipped")).toBe(row.skipped);
        if (row.count === 0) {
          expect(of("tailprobe_latency_seconds_count", series)).toHaveLength(0);
          continue;
        }
        expect(of("tailprobe_latency_seconds_count", series)[0]!.value).toBe(row.count);
        const values = exact.get(`${row.method} ${row.target}`)!;
        expect(of("tailprobe_latency_seconds_sum", series)[0]!.value).toBeCloseTo(
          values.reduce((a, b) => a + b, 0) / 1000,
          9,
        );
        // Cumulative buckets in order, the last (+Inf) equal to the count. Each lies between the exact
        // counts at the edges of the rollup bucket (0.54 % wide) its bound falls in, and is exact when
        // no latency shares that bucket (docs/api.md, GET /metrics).
        const buckets = of("tailprobe_latency_seconds_bucket", series);
        expect(buckets.map((b) => b.labels.le)).toEqual([...LATENCY_BUCKETS_S.map(String), "+Inf"]);
        const us = values.map((ms) => Math.round(ms * 1000));
        LATENCY_BUCKETS_S.forEach((le, i) => {
          const leUs = Math.round(le * 1e6);
          const k = bucketIndex(leUs);
          const below = us.filter((v) => v <= Math.floor(bucketUpper(k - 1))).length;
          const upTo = us.filter((v) => v <= Math.floor(bucketUpper(k))).length;
          const got = buckets[i]!.value;
          expect(got, `${row.method} ${row.target} le=${le}`).toBeGreaterThanOrEqual(below);
          expect(got, `${row.method} ${row.target} le=${le}`).toBeLessThanOrEqual(upTo);
          if (below === upTo)
            expect(got, `${row.method} ${row.target} le=${le}`).toBe(us.filter((v) => v <= leUs).length);
          if (i > 0) expect(got).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
        });
        expect(buckets.at(-1)!.value).toBe(row.count);
      }
      // By hand: ws to A has 0.4, 0.5, 0.999, 1, 2, 24.9 ms and 31 s (beyond the last bound), one timeout.
      // 0.999 and 1 ms share the rollup bucket holding 1 ms ((996.6, 1002.1] µs, integers 997–1002): 4 of
      // its 6 integers are ≤ 1000 µs, so its 2 samples count as round(2 · 4/6) = 1 and le="0.001" says 3
      // where exactly 4 are ≤ 1 ms: the documented error, at most that one bucket's samples.
      const ws = of("tailprobe_latency_seconds_bucket", { method: "ws", server: "A" });
      const at = (le: string) => ws.find((b) => b.labels.le === le)!.value;
      expect([at("0.0005"), at("0.001"), at("0.0025"), at("0.025"), at("30"), at("+Inf")]).toEqual([2, 3, 5, 6, 6, 7]);
      const tcpmin = outcomes!.samples.filter((m) => m.labels.method === "tcpminrtt");
      expect(Object.fromEntries(tcpmin.map((m) => [m.labels.outcome, m.value]))).toEqual({
        ok: 2,
        timeout: 0,
        error: 0,
        skipped: 0,
      });
    });

    it("a counter: a later sample only adds", async () => {
      const before = await (await fetch(`${server.url}/metrics`)).text();
      const res = await fetch(`${server.url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          clientId: "c-export-1",
          sessionId: "s-export-3",
          samples: [{ seq: 0, t: Date.now() - 1000, method: "ws", target: "A", ms: 0.7, outcome: "ok" }],
        }),
      });
      expect(res.status).toBe(200);
      const after = await (await fetch(`${server.url}/metrics`)).text();
      const values = (text: string) =>
        new Map(
          text
            .split("\n")
            .filter((l) => l !== "" && !l.startsWith("#"))
            .map((l) => [l.slice(0, l.lastIndexOf(" ")), Number(l.slice(l.lastIndexOf(" ") + 1))]),
        );
      const a = values(before);
      const b = values(after);
      expect([...b.keys()]).toEqual([...a.keys()]);
      const grew = [...b].filter(([k, v]) => v !== a.get(k)).map(([k]) => k);
      expect(grew.sort()).toEqual(
        [
          ...[
            "0.001",
            "0.0025",
            "0.005",
            "0.01",
            "0.025",
            "0.05",
            "0.1",
            "0.25",
            "0.5",
            "1",
            "2.5",
            "5",
            "10",
            "30",
            "+Inf",
          ].map((le) => `tailprobe_latency_seconds_bucket{method="ws",server="A",le="${le}"}`),
          'tailprobe_latency_seconds_count{method="ws",server="A"}',
          'tailprobe_latency_seconds_sum{method="ws",server="A"}',
          'tailprobe_samples_total{method="ws",server="A",outcome="ok"}',
        ].sort(),
      );
      for (const k of grew) expect(b.get(k)!).toBeGreaterThan(a.get(k)!);
    });
  });
});
