// The status page over 90 days of a busy deployment: ten servers, each
// probed with XHR, JSONP and WebSocket by four clients and by the servers
// themselves (peerhttp, peerws), samples in every 5-minute bucket of 90 days,
// so every rollup level holds a row per series and bucket as a deployment
// running for months does. Times GET /api/status computed afresh (its
// 10-second cache expired before each request) beside the same run's
// /api/stats over the same 90 days and methods, and /status as HTML.
// Run: npm run bench -- status-page  (or: npx tsx bench/status-page.ts [smoke|full])
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startServer } from "../server/app.js";
import { parseServeArgs } from "../server/cli/options.js";
import { STATUS_CACHE_MS } from "../server/status/status-route.js";
import { bulkLoader } from "../server/store/sqlite/bulk-loader.js";
import { Codes } from "../server/store/sqlite/codes.js";
import { openStore } from "../server/store/sqlite/store.js";
import type { Sample, SampleBatch } from "../shared/contract/index.js";
import { STATUS_DAYS, statusResponseSchema } from "../shared/contract/status.js";
import { parseWith } from "../shared/contract/parse.js";
import { mulberry32 as prng } from "../shared/prng.js";
import { median, type Benchmark, type BenchRow, type BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const DAY_MS = 86_400_000;
const BUCKET_MS = 300_000;
const SERVERS = Array.from({ length: 10 }, (_, i) => `S${i}`);
const METHODS = ["xhr", "jsonp", "ws", "peerhttp", "peerws"] as const;
const CLIENTS = ["laptop", "phone", "office", "home"] as const;
/** Samples per series and 5-minute bucket: enough for every rollup row to hold a spread of latencies. */
const SIZES = {
  smoke: { days: 3, perBucket: 1, repeats: 1 },
  full: { days: STATUS_DAYS, perBucket: 3, repeats: 5 },
} as const;
const STATUS_MS_MAX = 200;
/** Bump when the generated data changes, so a cached file of the old shape is not reused. */
const DATA_VERSION = 1;

/** The deployment's samples, client by client in time order (the bulk loader needs it), cached in the temp dir. */
function deployment(days: number, perBucket: number): { dbPath: string; n: number; endMs: number } {
  const endMs = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const dir = path.join(os.tmpdir(), "tailprobe-bench-cache");
  fs.mkdirSync(dir, { recursive: true });
  const dbPath = path.join(dir, `status-v${DATA_VERSION}-${days}d-${perBucket}-${endMs}.db`);
  const done = `${dbPath}.complete`;
  if (fs.existsSync(done)) return { dbPath, n: Number(fs.readFileSync(done, "utf8")), endMs };
  for (const f of fs.readdirSync(dir))
    if (f.startsWith(`status-v${DATA_VERSION}-${days}d-${perBucket}-`)) fs.rmSync(path.join(dir, f), { force: true });
  const t0 = performance.now();
  const store = openStore(dbPath, { rawDays: 36_500, rollupDays: 36_500 });
  const loader = bulkLoader(store.db, new Codes(store.db));
  const rand = prng(3990);
  const seqs = CLIENTS.map(() => 0);
  let n = 0;
  try {
    // An hour of every series per batch and client: in time order across the batches.
    for (let hour = endMs - days * DAY_MS; hour < endMs; hour += 3_600_000) {
      for (const [c, label] of CLIENTS.entries()) {
        const samples: Sample[] = [];
        for (let bucket = hour; bucket < hour + 3_600_000; bucket += BUCKET_MS)
          for (const [si, target] of SERVERS.entries())
            for (const method of METHODS)
              for (let k = 0; k < perBucket; k++) {
                if ((si + k) % CLIENTS.length !== c) continue;
                const t = bucket + Math.floor(rand() * BUCKET_MS);
                const r = rand();
                const base = 1 + si * 4;
                samples.push(
                  r < 0.002
                    ? { seq: seqs[c]!++, t, method, target, ms: null, outcome: "error", reason: "network" }
                    : r < 0.004
                      ? { seq: seqs[c]!++, t, method, target, ms: 5000, outcome: "timeout" }
                      : {
                          seq: seqs[c]!++,
                          t,
                          method,
                          target,
                          ms: Math.round(base * Math.exp(0.4 * (rand() * 2 - 1)) * (r > 0.99 ? 8 : 1) * 1000) / 1000,
                          outcome: "ok",
                        },
                );
              }
        samples.sort((x, y) => x.t - y.t || x.seq - y.seq);
        if (samples.length === 0) continue;
        const batch: SampleBatch = { clientId: `bench_${label}`, sessionId: `bench_status_${label}`, label, samples };
        loader.add(batch);
        n += samples.length;
      }
    }
    loader.finish();
  } finally {
    store.db.pragma("wal_checkpoint(TRUNCATE)");
    void store.close();
  }
  fs.writeFileSync(done, String(n));
  const s = (performance.now() - t0) / 1000;
  console.log(`wrote ${n} samples over ${days} days for ${SERVERS.length} servers in ${s.toFixed(1)} s to ${dbPath}`);
  return { dbPath, n, endMs };
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { days, perBucket, repeats } = SIZES[size];
  const data = deployment(days, perBucket);
  const parsed = parseServeArgs([
    "--port",
    "0",
    "--name",
    "S0",
    "--db",
    data.dbPath,
    "--no-ping",
    "--no-rate-limit",
    "--raw-days",
    "36500",
    "--rollup-days",
    "36500",
  ]);
  if (!parsed.ok || parsed.value === "help") throw new Error("bad flags");
  // The status answer is cached for STATUS_CACHE_MS: the server's clock moves past it before each timed request.
  let offsetMs = 0;
  const server = await startServer(parsed.value, { log: () => {}, nowMs: () => Date.now() + offsetMs });
  const statusMs: number[] = [];
  const statsMs: number[] = [];
  const htmlMs: number[] = [];
  const from = Date.now() - STATUS_DAYS * DAY_MS;
  const stats = `/api/stats?from=${from}&method=${METHODS.join(",")}`;
  const timed = async (url: string, into: number[]) => {
    const t0 = performance.now();
    const res = await fetch(server.url + url);
    const body = await res.text();
    into.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${body.slice(0, 200)}`);
    return body;
  };
  try {
    // Warm-up: page cache and JIT, and a check that the answer covers every server.
    const first = parseWith(statusResponseSchema, JSON.parse(await timed("/api/status", [])));
    if (!first.ok) throw new Error(`/api/status: ${first.error}`);
    const withData = first.value.servers.filter((s) => s.days.some((d) => d.probes > 0));
    if (withData.length !== SERVERS.length) throw new Error(`/api/status covers ${withData.length} servers with data`);
    await timed(stats, []);
    for (let r = 0; r < repeats; r++) {
      offsetMs += STATUS_CACHE_MS;
      await timed("/api/status", statusMs);
      await timed(stats, statsMs);
      await timed("/status", htmlMs);
    }
  } finally {
    await server.close();
  }
  const judge = (ok: boolean) => (size === "smoke" ? null : ok);
  const status = median(statusMs);
  const label = `${days} days, ${SERVERS.length} servers, ${data.n} samples`;
  return [
    {
      figure: `GET /api/status computed afresh, ${label} (ms)`,
      value: status,
      baseline: median(statsMs),
      goal: `≤ ${STATUS_MS_MAX} ms (baseline: /api/stats over the same days and methods)`,
      pass: judge(status <= STATUS_MS_MAX),
    },
    {
      figure: `GET /status (HTML) from the 10-second cache, ${label} (ms)`,
      value: median(htmlMs),
      baseline: status,
      goal: "(reported)",
      pass: null,
    },
  ];
}

export const bench: Benchmark = {
  name: "status-page",
  about:
    "GET /api/status computed afresh (its cache expired) over 90 days of rollups of ten servers probed in every 5-minute bucket, beside /api/stats over the same days and methods in the same run.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
