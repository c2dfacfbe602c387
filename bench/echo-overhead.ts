// Does tailprobe's echo path add anything over a bare node:http server?
// Runs both in child processes, drives each with the same keep-alive load from
// this process, interleaved in rounds, and prints latency and throughput ratios.
// Run: npm run bench -- echo-overhead  (or: npx tsx bench/echo-overhead.ts [smoke|full])
import http from "node:http";
import { summarize } from "../shared/stats.js";
import { startNodeServer, startServerProcess } from "../testkit/server-process.js";
import { pinToOneCpu } from "./pin-cpu.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { rounds: 1, requests: 200 }, full: { rounds: 5, requests: 4000 } } as const;
const CONCURRENCY = 4;
/** Issue 13: "Echo overhead is already good (1.12×): keep it there." */
const OVERHEAD_MAX = 1.25;

const BARE_SERVER = `
const http = require("node:http");
const body = '{"ok":true}';
const s = http.createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": body.length,
    "Cache-Control": "no-store", "Access-Control-Allow-Origin": "*", "Timing-Allow-Origin": "*" });
  res.end(body);
});
s.keepAliveTimeout = 70000;
s.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + s.address().port));
`;

async function load(url: string, requests: number): Promise<{ latenciesMs: number[]; seconds: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latenciesMs: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < requests) {
      next++;
      const s = performance.now();
      await new Promise<void>((resolve, reject) => {
        http
          .get(`${url}/echo`, { agent }, (res) => {
            res.resume();
            res.on("end", () => resolve());
          })
          .on("error", reject);
      });
      latenciesMs.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return { latenciesMs, seconds: (performance.now() - t0) / 1000 };
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { rounds: ROUNDS, requests: REQUESTS_PER_ROUND } = SIZES[size];
  const bare = await startNodeServer(["-e", BARE_SERVER], { echoStderr: true });
  const tp = await startServerProcess(["--no-ping", "--no-rate-limit"], { dbPath: ":memory:", echoStderr: true });
  const results: Record<string, { lat: number[]; rps: number[] }> = {
    bare: { lat: [], rps: [] },
    tailprobe: { lat: [], rps: [] },
  };
  pinToOneCpu([bare.child.pid!, tp.child.pid!]);
  try {
    const warm = Math.min(500, REQUESTS_PER_ROUND);
    await load(bare.url, warm); // warm-up
    await load(tp.url, warm);
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate the order so drift on a shared machine hits both alike.
      const order = r % 2 === 0 ? (["bare", "tailprobe"] as const) : (["tailprobe", "bare"] as const);
      for (const name of order) {
        const { latenciesMs, seconds } = await load(name === "bare" ? bare.url : tp.url, REQUESTS_PER_ROUND);
        results[name]!.lat.push(...latenciesMs);
        results[name]!.rps.push(REQUESTS_PER_ROUND / seconds);
      }
    }
  } finally {
    await bare.stop();
    await tp.stop();
  }
  const median = (xs: number[]) => summarize(xs).p50 ?? NaN;
  const row = (name: string) => {
    const s = summarize(results[name]!.lat);
    return { name, p50Ms: s.p50, p99Ms: s.p99, p999Ms: s.p999, reqPerSec: median(results[name]!.rps) };
  };
  const b = row("bare");
  const t = row("tailprobe");
  console.log(`GET /echo, ${ROUNDS} rounds × ${REQUESTS_PER_ROUND} requests, ${CONCURRENCY} keep-alive connections`);
  for (const r of [b, t])
    console.log(
      `${r.name.padEnd(10)} p50 ${r.p50Ms!.toFixed(3)} ms  p99 ${r.p99Ms!.toFixed(3)} ms  p99.9 ${r.p999Ms!.toFixed(3)} ms  ${r.reqPerSec.toFixed(0)} req/s`,
    );
  const judge = (ratio: number) => (size === "smoke" ? null : ratio <= OVERHEAD_MAX);
  return [
    {
      figure: "/echo p50 vs bare node:http (ms)",
      value: t.p50Ms!,
      baseline: b.p50Ms!,
      goal: `≤ ${OVERHEAD_MAX}× bare`,
      pass: judge(t.p50Ms! / b.p50Ms!),
    },
    { figure: "/echo p99 vs bare node:http (ms)", value: t.p99Ms!, baseline: b.p99Ms!, goal: "(reported)", pass: null },
    {
      figure: "/echo throughput vs bare (req/s)",
      value: t.reqPerSec,
      baseline: b.reqPerSec,
      goal: "(reported)",
      pass: null,
    },
  ];
}

export const bench: Benchmark = {
  name: "echo-overhead",
  about:
    "GET /echo against a bare node:http server, 4 keep-alive connections, interleaved rounds, both pinned to one CPU.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
