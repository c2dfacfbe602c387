// How long does each chart endpoint take over a day of samples? Fills a store
// with N samples (default 1,000,000) over the last 24 h, then times every
// endpoint over HTTP for the whole range and for the last hour, beside a
// baseline measured in the same run: a bare iteration of the same rows
// (the floor for any answer computed from raw samples).
// Run: npm run bench -- chart-queries  (or: npx tsx bench/chart-queries.ts [smoke|full])
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { startServer } from "../server/app.js";
import { parseServeArgs } from "../server/cli/options.js";
import { DAY_MS, dayOfSamples } from "./synthetic-samples.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { samples: 5000, repeats: 1 }, full: { samples: 1_000_000, repeats: 3 } } as const;
const HOUR_MS = 3_600_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function bareScan(db: Database.Database, fromMs: number, endMs: number): number {
  let t: number;
  t = performance.now();
  const it = db.prepare("SELECT t, method, target, outcome, ms, minrtt FROM samples WHERE t >= ? AND t <= ?").raw(true);
  for (const _row of it.iterate(fromMs, endMs));
  return performance.now() - t;
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { samples: N, repeats: REPEATS } = SIZES[size];
  const { dir, dbPath, endMs } = dayOfSamples(N);
  let t: number;
  const out: BenchRow[] = [];
  const parsed = parseServeArgs(["--port", "0", "--db", dbPath, "--no-ping", "--no-rate-limit"]);
  if (!parsed.ok || parsed.value === "help") throw new Error("bad flags");
  const server = await startServer(parsed.value, { log: () => {} });
  const ENDPOINTS = ["stats", "histogram", "cdf", "timeseries", "heatmap", "clients"];
  const rows: string[] = [];
  const RANGES = [
    ["whole day", endMs - DAY_MS - 1],
    ["last hour", endMs - HOUR_MS],
  ] as const;
  const times = new Map<string, number[]>();
  const bytes = new Map<string, number>();
  const record = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms]);
  const bare = new Database(dbPath, { readonly: true });
  try {
    // Rounds interleave the baseline with every endpoint, so drift on a shared
    // machine hits both alike.
    for (let r = 0; r < REPEATS; r++) {
      for (const [label, fromMs] of RANGES) {
        record(`${label}|bare`, bareScan(bare, fromMs, endMs));
        for (const ep of ENDPOINTS) {
          const q = ep === "clients" ? "" : `?from=${fromMs}&to=${endMs}`;
          t = performance.now();
          const res = await fetch(`${server.url}/api/${ep}${q}`);
          const body = await res.text();
          record(`${label}|${ep}`, performance.now() - t);
          if (res.status !== 200) throw new Error(`${ep}: HTTP ${res.status} ${body.slice(0, 200)}`);
          bytes.set(`${label}|${ep}`, body.length);
        }
      }
    }
    for (const [label] of RANGES) {
      const base = median(times.get(`${label}|bare`)!);
      rows.push(`| ${label} | bare row scan (baseline) | ${base.toFixed(0)} ms | 1.00 | – |`);
      for (const ep of ENDPOINTS) {
        const m = median(times.get(`${label}|${ep}`)!);
        rows.push(`| ${label} | /api/${ep} | ${m.toFixed(0)} ms | ${(m / base).toFixed(2)} | ${((bytes.get(`${label}|${ep}`) ?? 0) / 1024).toFixed(0)} kB |`);
        out.push({ figure: `/api/${ep}, ${N} samples, ${label} (ms)`, value: m, baseline: base, goal: "(reported)", pass: null });
      }
    }
  } finally {
    bare.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nmedian of ${REPEATS}, ${N} samples\n\n| range | endpoint | time | ratio to bare scan | response |\n|---|---|---|---|---|`);
  for (const r of rows) console.log(r);
  return out;
}

export const bench: Benchmark = { name: "chart-queries", run };
if (isMain(import.meta.url)) await runAlone(bench);
