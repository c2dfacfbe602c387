// How long does each chart endpoint take over a day of samples? Fills a store
// with N samples (default 1,000,000) over the last 24 h, then times every
// endpoint over HTTP for the whole range and for the last hour, beside a
// baseline measured in the same run: a bare iteration of the same rows
// (the floor for any answer computed from raw samples).
// Run: npx tsx bench/chart-queries.ts [samples=1000000] [repeats=3]
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { startServer } from "../server/app.js";
import { parseServeArgs } from "../server/cli/options.js";
import { tempDir } from "../tests/helpers/server-process.js";
import { fillStore } from "./synthetic-samples.js";

const N = Number(process.argv[2] ?? 1_000_000);
const REPEATS = Number(process.argv[3] ?? 3);
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const dir = tempDir("tailprobe-bench-");
const dbPath = path.join(dir, "bench.db");
const endMs = Date.now();
let t = performance.now();
fillStore(dbPath, N, DAY_MS, endMs);
console.log(`stored ${N} samples over a day in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function bareScanMs(fromMs: number): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    const ms: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      t = performance.now();
      let n = 0;
      const it = db.prepare("SELECT t, method, target, outcome, ms, minrtt FROM samples WHERE t >= ? AND t <= ?").raw(true);
      for (const _row of it.iterate(fromMs, endMs)) n++;
      ms.push(performance.now() - t);
    }
    return median(ms);
  } finally {
    db.close();
  }
}

const parsed = parseServeArgs(["--port", "0", "--db", dbPath, "--no-ping"]);
if (!parsed.ok || parsed.value === "help") throw new Error("bad flags");
const server = await startServer(parsed.value, { log: () => {} });
const ENDPOINTS = ["stats", "histogram", "cdf", "timeseries", "heatmap", "clients"];
const rows: string[] = [];
try {
  for (const [label, fromMs] of [
    ["whole day", endMs - DAY_MS - 1],
    ["last hour", endMs - HOUR_MS],
  ] as const) {
    const bare = bareScanMs(fromMs);
    rows.push(`| ${label} | bare row scan (baseline) | ${bare.toFixed(0)} ms | 1.00 | – |`);
    for (const ep of ENDPOINTS) {
      const q = ep === "clients" ? "" : `?from=${fromMs}&to=${endMs}`;
      const ms: number[] = [];
      let bytes = 0;
      for (let r = 0; r < REPEATS; r++) {
        t = performance.now();
        const res = await fetch(`${server.url}/api/${ep}${q}`);
        const body = await res.text();
        ms.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`${ep}: HTTP ${res.status} ${body.slice(0, 200)}`);
        bytes = body.length;
      }
      const m = median(ms);
      rows.push(`| ${label} | /api/${ep} | ${m.toFixed(0)} ms | ${(m / bare).toFixed(2)} | ${(bytes / 1024).toFixed(0)} kB |`);
    }
  }
} finally {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`\nmedian of ${REPEATS}, ${N} samples\n\n| range | endpoint | time | ratio to bare scan | response |\n|---|---|---|---|---|`);
for (const r of rows) console.log(r);
