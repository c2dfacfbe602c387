// Does a long query stall the echo endpoints? Fills a store with N samples over
// a day, then measures GET /echo latency from a worker thread (its own event
// loop, so it keeps sending while the server's loop is busy):
//   idle     – nothing else running
//   sliced   – whole-range /api/stats and /api/histogram queries back to back (what the server does)
//   blocking – the same stats query run without slicing, in the server's thread (the old way)
// Echo requests are sent every 10 ms whatever happens, so a stall shows as the
// time each one waited.
// Run: npm run bench -- query-stall  (or: npx tsx bench/query-stall.ts [smoke|full])
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { startServer } from "../server/app.js";
import { parseServeArgs } from "../server/cli/options.js";
import { rawStats } from "../server/query/stats.js";
import { openReadPool } from "../server/store/sqlite/read-pool.js";
import { Pace } from "../server/store/pace.js";
import { summarize } from "../shared/stats.js";
import { dayOfSamples } from "./synthetic-samples.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";
import { sqliteDb } from "../testkit/sqlite-store.js";

const SIZES = { smoke: { samples: 2000, echoRequests: 30 }, full: { samples: 1_000_000, echoRequests: 300 } } as const;
const ECHO_INTERVAL_MS = 10;

// GET /echo on a fixed schedule (open loop, like a prober: a probe is due
// whether or not the last one came back), latency measured from the due time,
// until `count` are done or the parent says stop.
const ECHO_CLIENT = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const ms = [];
let sent = 0, done = 0, stop = false;
const finish = () => { agent.destroy(); parentPort.postMessage(ms); };
parentPort.on("message", () => { stop = true; });
const timer = setInterval(() => {
  if (stop || sent >= workerData.count) {
    clearInterval(timer);
    if (done === sent) finish();
    return;
  }
  sent++;
  const due = performance.now();
  http.get(workerData.url + "/echo", { agent }, (res) => {
    res.resume();
    res.on("end", () => {
      ms.push(performance.now() - due);
      done++;
      if ((stop || sent >= workerData.count) && done === sent) { clearInterval(timer); finish(); }
    });
  }).on("error", (e) => { throw e; });
}, workerData.intervalMs);
`;

function echoClient(url: string, count: number): { done: Promise<number[]>; stop(): void } {
  const w = new Worker(ECHO_CLIENT, { eval: true, workerData: { url, count, intervalMs: ECHO_INTERVAL_MS } });
  const done = new Promise<number[]>((resolve, reject) => {
    w.once("message", (ms: number[]) => {
      void w.terminate();
      resolve(ms);
    });
    w.once("error", reject);
  });
  return { done, stop: () => w.postMessage("stop") };
}

const fmt = (v: number | null) => (v === null ? "–" : `${v.toFixed(2)} ms`);

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { samples: N, echoRequests: ECHO_REQUESTS } = SIZES[size];
  let t: number;
  const { dir, dbPath, endMs } = await dayOfSamples(N);

  // While the blocking query holds the loop, every echo due opens a connection of its own (up to 300 from
  // one address): past the per-address cap (128) the server would reset them, and the bench measure that.
  const parsed = parseServeArgs([
    "--port",
    "0",
    "--db",
    dbPath,
    "--no-ping",
    "--no-rate-limit",
    "--connections-per-address",
    "100000",
  ]);
  if (!parsed.ok || parsed.value === "help") throw new Error("bad flags");
  const server = await startServer(parsed.value, { log: () => {} });
  const results: Record<string, number[]> = {};
  const queryMs: number[] = [];
  try {
    // Warm-up: connections, page cache, JIT.
    await echoClient(server.url, 50).done;
    await fetch(`${server.url}/api/stats?from=0`).then((r) => r.json());

    results.idle = await echoClient(server.url, ECHO_REQUESTS).done;

    {
      const client = echoClient(server.url, ECHO_REQUESTS);
      let finished = false;
      void client.done.then(() => (finished = true));
      for (let i = 0; !finished && i < 1000; i++) {
        const q = i % 2 === 0 ? "stats" : "histogram";
        t = performance.now();
        const res = await fetch(`${server.url}/api/${q}?from=0`);
        await res.json();
        if (res.status !== 200) throw new Error(`${q}: HTTP ${res.status}`);
        queryMs.push(performance.now() - t);
      }
      results.sliced = await client.done;
    }

    {
      const pool = openReadPool(dbPath, sqliteDb(server.store));
      const client = echoClient(server.url, 100_000);
      const blockingMs: number[] = [];
      for (let i = 0; i < 3; i++) {
        t = performance.now();
        await rawStats(pool, { fromMs: 0, toMs: endMs }, new Pace(Number.POSITIVE_INFINITY));
        blockingMs.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 1000)); // let the stalled echoes through before the next
      }
      client.stop();
      results.blocking = await client.done;
      pool.close();
      console.log(`blocking stats query: ${blockingMs.map((x) => x.toFixed(0)).join(", ")} ms`);
    }
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const q = summarize(queryMs);
  console.log(`sliced whole-range queries: ${queryMs.length}, p50 ${fmt(q.p50)}, max ${fmt(q.max)}`);
  const idle = summarize(results.idle!);
  console.log("\n| echo during | requests | p50 | p99 | max | ratio p50 | ratio p99 |\n|---|---|---|---|---|---|---|");
  for (const [name, ms] of Object.entries(results)) {
    const s = summarize(ms);
    console.log(
      `| ${name} | ${s.count} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.max)} | ${(s.p50! / idle.p50!).toFixed(2)} | ${(s.p99! / idle.p99!).toFixed(2)} |`,
    );
  }
  const sliced = summarize(results.sliced!);
  return [
    {
      figure: "/echo p99 during back-to-back whole-range queries (ms)",
      value: sliced.p99!,
      baseline: idle.p99!,
      goal: "(reported)",
      pass: null,
    },
  ];
}

export const bench: Benchmark = {
  name: "query-stall",
  about:
    "GET /echo every 10 ms from a worker thread while whole-day queries run over 1 M samples, against an idle server.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
