// GET /api/samples.csv, /api/samples.ndjson and /metrics on a small, known
// set of samples: the same filters as /api/stats, exact rows and values, and
// Prometheus text that a real parser reads and whose counts agree with /api/stats.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_COLUMNS } from "../../server/query/sample-export.js";
import { LATENCY_BUCKETS_S } from "../../server/query/metrics-source.js";
import type { StatsResponse } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { runPythonScript } from "../helpers/python.js";
import { tempDir } from "../helpers/server-process.js";
import { publicIdOf } from "../helpers/public-id.js";

interface PromFamily {
  name: string;
  type: string;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

let server: Awaited<ReturnType<typeof startInProcess>>;
const T0 = Date.now() - 600_000;

const samples = [
  { seq: 0, t: T0, method: "xhr", target: "A", ms: 12.5, outcome: "ok", lateMs: 1, visibleAtSend: true, visibleAtReply: false, serverMs: 0.25 },
  { seq: 1, t: T0 + 1000, method: "xhr", target: "B", ms: 300, outcome: "ok", fresh: true },
  { seq: 2, t: T0 + 2000, method: "ws", target: "A", ms: 5000, outcome: "timeout" },
  { seq: 3, t: T0 + 3000, method: "jsonp", target: "A", ms: null, outcome: "error", reason: "http-5xx" },
  { seq: 4, t: T0 + 4000, method: "ws", target: "A", ms: 0.4, outcome: "ok" },
  { seq: 5, t: T0 + 5000, method: "ws", target: "A", ms: 2, outcome: "ok" },
  { seq: 6, t: T0 + 6000, method: "ping", target: "A", ms: 31, outcome: "ok" },
  { seq: 7, t: T0 + 7000, method: "xhr", target: "A", ms: null, outcome: "skipped", reason: "frozen" },
];

beforeAll(async () => {
  // B is a named peer (never contacted): samples may only name servers of the deployment.
  server = await startInProcess(["--peer", "B=http://127.0.0.1:9"]);
  const res = await fetch(`${server.url}/api/samples`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ clientId: "c-export-1", sessionId: "s-export-1", samples }),
  });
  expect(res.status).toBe(200);
  // A database from before the reason vocabulary holds free text, and exports read it back as stored:
  // here one with a comma and quotes, which the CSV must quote.
  const legacy = new Database(server.options.dbPath);
  legacy.prepare("UPDATE reasons SET text = ? WHERE text = 'http-5xx'").run('http-503, "busy"');
  legacy.close();
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
    expect(rows[0]).toMatchObject({ client: publicIdOf(server.store.db, "c-export-1"), sessionId: "s-export-1", ms: "12.5", visibleAtSend: "true", visibleAtReply: "false", froze: "", serverMs: "0.25", lateMs: "1" });
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
  it("a header object, then one object per sample", async () => {
    const res = await fetch(`${server.url}/api/samples.ndjson?${range}`);
    expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({ tailprobe: "samples", version: 1, from: T0 - 1, to: T0 + 60_000, columns: [...EXPORT_COLUMNS] });
    expect(lines).toHaveLength(samples.length + 1);
    expect(lines[1]).toMatchObject({ t: T0, method: "xhr", ms: 12.5, visibleAtSend: true, visibleAtReply: false, froze: null, serverMs: 0.25 });
    expect(lines[3]).toMatchObject({ method: "ws", ms: 5000, outcome: "timeout" });
  });
});

describe("pandas", () => {
  it("reads the CSV as docs/api.md shows, with numeric latencies and the stats' p99", async () => {
    const file = path.join(tempDir(), "samples.csv");
    fs.writeFileSync(file, await (await fetch(`${server.url}/api/samples.csv?${range}`)).text());
    const r = runPythonScript("read_export.py", [file]) as { rows: number; columns: string[]; dtypes: Record<string, string>; p99: Record<string, number> };
    expect(r.rows).toBe(samples.length);
    expect(r.columns).toEqual([...EXPORT_COLUMNS]);
    expect(r.dtypes).toMatchObject({ t: "datetime64[ns]", ms: "float64", seq: "int64", serverMs: "float64" });
    const stats = (await (await fetch(`${server.url}/api/stats?${range}`)).json()) as StatsResponse;
    for (const row of stats.rows.filter((x) => x.count > 0)) expect(r.p99[`${row.method} ${row.target}`]).toBe(row.p99);
  });
});

describe("GET /metrics", () => {
  it("parses with the Prometheus client's parser, and its counts agree with /api/stats", async () => {
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

    const stats = (await (await fetch(`${server.url}/api/stats?${range}`)).json()) as StatsResponse;
    expect(stats.rows.length).toBeGreaterThan(3);
    for (const row of stats.rows) {
      const series = { method: row.method, server: row.target };
      const count = (outcome: string) =>
        outcomes!.samples.find((m) => m.labels.method === row.method && m.labels.server === row.target && m.labels.outcome === outcome)?.value ?? 0;
      expect(count("ok")).toBe(row.count);
      expect(count("timeout") + count("error")).toBe(row.failures);
      expect(count("skipped")).toBe(row.skipped);
      if (row.count === 0) {
        expect(of("tailprobe_latency_seconds_count", series)).toHaveLength(0);
        continue;
      }
      expect(of("tailprobe_latency_seconds_count", series)[0]!.value).toBe(row.count);
      expect(of("tailprobe_latency_seconds_sum", series)[0]!.value).toBeCloseTo((row.mean! * row.count) / 1000, 9);
      // Cumulative buckets in order, the last (+Inf) equal to the count.
      const buckets = of("tailprobe_latency_seconds_bucket", series);
      expect(buckets.map((b) => b.labels.le)).toEqual([...LATENCY_BUCKETS_S.map(String), "+Inf"]);
      for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
      expect(buckets.at(-1)!.value).toBe(row.count);
    }
    // The ws A series by hand: 0.4 ms and 2 ms ok, one timeout.
    const ws = of("tailprobe_latency_seconds_bucket", { method: "ws", server: "A" });
    expect(ws.find((b) => b.labels.le === "0.0005")!.value).toBe(1);
    expect(ws.find((b) => b.labels.le === "0.001")!.value).toBe(1);
    expect(ws.find((b) => b.labels.le === "0.0025")!.value).toBe(2);
  });
});
