// /metrics in a real Prometheus: the scrape configuration of docs/api.md
// (interval shortened to 1 s, target pointed at a server on port 0), then
// Prometheus' own query API answers the series' counts as /api/stats does,
// and the doc's p99 PromQL query gives a p99 inside the Prometheus bucket
// holding the exact one. `promtool check metrics` lints the text too.
// Prometheus and promtool come from Debian's prometheus package, unpacked
// without its service (.ci/run): in CI a missing one fails, locally it skips
// with a message saying what to install.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { freePort } from "../../testkit/free-port.js";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { LATENCY_BUCKETS_S } from "../../server/query/metrics-source.js";
import type { StatsResponse } from "../../shared/contract/index.js";
import { percentileSorted } from "../../shared/stats.js";
import { startInProcess } from "../helpers/in-process.js";
import { mulberry32 } from "../../shared/prng.js";
import { tempDir, waitFor } from "../../testkit/server-process.js";

const run = promisify(execFile);
const found = async (cmd: string) =>
  run(cmd, ["--version"]).then(
    () => true,
    () => false,
  );
const available = (await found("prometheus")) && (await found("promtool"));
const inCi = process.env.CI !== undefined && process.env.CI !== "";
const DOC = fs.readFileSync(path.resolve("docs/api.md"), "utf8");

let server: RunningServer;
let prometheus: ChildProcess | undefined;
let promUrl = "";
let seq = 0;
const r = mulberry32(77);
/** Latencies (ms) of the WebSocket samples to A posted after the first scrape: what rate() sees. */
const later: number[] = [];

async function post(samples: object[]): Promise<void> {
  const res = await fetch(`${server.url}/api/samples`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ clientId: "c-prometheus", sessionId: "s-prometheus", samples }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

interface Vector {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(promql: string): Promise<Vector[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data: { result: Vector[] } };
  expect(body.status, JSON.stringify(body)).toBe("success");
  return body.data.result;
}

/** Seconds Prometheus has scraped tailprobe's /metrics, as it counts them. */
const scrapes = async () => Number((await query('count_over_time(up{job="tailprobe"}[1h])'))[0]?.value[1] ?? 0);

beforeAll(async () => {
  server = await startInProcess(["--peer", "B=http://127.0.0.1:9"]);
  const now = Date.now();
  const first: object[] = [];
  for (let k = 0; k < 200; k++) {
    const t = now - 600_000 + k * 1000;
    first.push(
      { seq: seq++, t, method: "ws", target: "A", ms: Math.round((1 + 4 * r()) * 1000) / 1000, outcome: "ok" },
      {
        seq: seq++,
        t: t + 1,
        method: "xhr",
        target: "B",
        ms: Math.round((20 + 30 * r()) * 1000) / 1000,
        outcome: k % 50 === 0 ? "timeout" : "ok",
      },
      { seq: seq++, t: t + 2, method: "tcprtt", target: "A", ms: 0.4, outcome: "ok", minrtt: 0.05 },
    );
  }
  // Timeouts carry their timeout value.
  for (const s of first as { outcome: string; ms: number }[]) if (s.outcome === "timeout") s.ms = 5000;
  await post(first);
  if (!available) return;

  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  const dir = tempDir("tailprobe-prometheus-");
  // The doc's scrape configuration, as written but for the interval and the target's address.
  const yaml = /```yaml\n([\s\S]*?)```/.exec(DOC.slice(DOC.indexOf("### GET /metrics")))![1]!;
  expect(yaml).toContain("127.0.0.1:8080");
  fs.writeFileSync(
    path.join(dir, "prometheus.yml"),
    yaml.replace("scrape_interval: 60s", "scrape_interval: 1s").replace("127.0.0.1:8080", new URL(server.url).host),
  );
  prometheus = spawn(
    "prometheus",
    [
      `--config.file=${path.join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  prometheus.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  await waitFor(
    async () => {
      try {
        return (await query('up{job="tailprobe"}'))[0]?.value[1] === "1" ? true : undefined;
      } catch {
        return undefined;
      }
    },
    30_000,
    `Prometheus to scrape /metrics (its log: ${log})`,
  );
  // More samples after the first scrape, so rate() over the doc's window sees them.
  // Their tail is 2 in 300 (0.67 %), clear of the 1 % a p99 rests on: at exactly
  // 1 % the p99's rank sits on a bucket's upper count, and rate()'s floating-point
  // extrapolation tipped histogram_quantile into the next bucket (0.1000000000000017
  // for an exact p99 under 10 ms, once with a core kept busy).
  const after: object[] = [];
  for (let k = 0; k < 300; k++) {
    const ms = Math.round((2 + 8 * r() + (k % 150 === 7 ? 200 : 0)) * 1000) / 1000;
    later.push(ms);
    after.push({ seq: seq++, t: Date.now() - 5000 + k, method: "ws", target: "A", ms, outcome: "ok" });
  }
  const before = await scrapes();
  await post(after);
  await waitFor(async () => ((await scrapes()) >= before + 2 ? true : undefined), 30_000, "two more scrapes");
}, 90_000);

afterAll(async () => {
  prometheus?.kill("SIGTERM");
  await server.close();
});

describe("/metrics in Prometheus", () => {
  it.skipIf(!available && !inCi)(
    available
      ? "promtool finds nothing to fix in the exposition"
      : "(skipped: prometheus/promtool not found; .ci/run unpacks Debian's prometheus package)",
    async () => {
      expect(available, "prometheus and promtool are required in CI: .ci/run installs them").toBe(true);
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const child = execFile("promtool", ["check", "metrics"]);
      const done = new Promise<{ code: number | null; out: string }>((resolve) => {
        let out = "";
        child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
        child.on("close", (code) => resolve({ code, out }));
      });
      child.stdin!.end(text);
      const { code, out } = await done;
      expect(out.trim()).toBe("");
      expect(code).toBe(0);
    },
  );

  it.skipIf(!available && !inCi)(
    available
      ? "Prometheus scrapes it: counts as /api/stats, and the doc's p99 query inside the bucket holding the exact p99"
      : "(skipped: prometheus not found)",
    async () => {
      const stats = ((await (await fetch(`${server.url}/api/stats`)).json()) as StatsResponse).rows;
      const counts = await query("tailprobe_latency_seconds_count");
      const failures = await query('sum by (method, server) (tailprobe_samples_total{outcome=~"timeout|error"})');
      expect(stats.map((s) => `${s.method} ${s.target}`).sort()).toEqual(
        counts.map((v) => `${v.metric.method} ${v.metric.server}`).sort(),
      );
      for (const s of stats) {
        const c = counts.find((v) => v.metric.method === s.method && v.metric.server === s.target)!;
        expect(Number(c.value[1]), `${s.method} ${s.target}`).toBe(s.count);
        const f = failures.find((v) => v.metric.method === s.method && v.metric.server === s.target)!;
        expect(Number(f.value[1])).toBe(s.failures);
      }
      // The doc's p99 query, verbatim.
      const promql = /```promql\n([\s\S]*?)```/.exec(DOC.slice(DOC.indexOf("### GET /metrics")))![1]!.trim();
      const p99 = (await query(promql)).find((v) => v.metric.method === "ws" && v.metric.server === "A");
      expect(p99, `no ws/A answer to ${promql}`).toBeDefined();
      // rate() over the window sees the samples added between scrapes: its p99 lies in their p99's bucket.
      const exactS =
        percentileSorted(
          [...later].sort((a, b) => a - b),
          99,
        )! / 1000;
      const hi = LATENCY_BUCKETS_S.find((le) => exactS <= le)!;
      const lo = [...LATENCY_BUCKETS_S].reverse().find((le) => le < exactS) ?? 0;
      expect(Number(p99!.value[1])).toBeGreaterThan(lo);
      expect(Number(p99!.value[1])).toBeLessThanOrEqual(hi);
    },
  );
});
