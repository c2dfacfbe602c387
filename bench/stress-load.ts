// What the stress test's load paths cost: throughput and CPU time per Gbit/s
// moved, downloads and uploads, against a bare node:http server streaming the
// same random bytes. Both servers run as child processes; this process is the
// client (four parallel streams, as the page starts with), in interleaved
// rounds. CPU is every thread of the server (the load thread included).
// Run: npm run bench -- stress-load  (or: npx tsx bench/stress-load.ts [smoke|full])
import http from "node:http";
import { STRESS_MBPS_PER_ADDRESS_DEFAULT } from "../server/limits/limits-config.js";
import { startNodeServer, startServerProcess } from "../testkit/server-process.js";
import { threadsCpuS } from "./proc-usage.js";
import { median, type Benchmark, type BenchRow, type BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const MIB = 1024 * 1024;
const SIZES = { smoke: { rounds: 1, streamMib: 8 }, full: { rounds: 5, streamMib: 256 } } as const;
const STREAMS = 4;
/**
 * CPU per Gbit/s within this of a bare server streaming the same bytes. The
 * load runs in a worker at nice 19 so that the echo loop keeps its core; it
 * moves bytes in smaller turns than a main thread at nice 0 (measured on the
 * shared 2-core machine: downloads 0.6–1.3×, uploads 1.9–2.5×:
 * docs/decisions/0028-stress-load-on-origins-of-its-own.md).
 */
const CPU_RATIO_MAX = 3;
/**
 * Throughput at least this (Gbit/s): two addresses at the default per-address
 * rate (limits-config.ts STRESS_MBPS_PER_ADDRESS_DEFAULT), on a shared 2-core
 * machine whose client shares the cores. The bare server's is printed beside it.
 */
const THROUGHPUT_GBPS_MIN = (2 * STRESS_MBPS_PER_ADDRESS_DEFAULT) / 1000;

/** The baseline: node:http alone, the same 4 MiB of random bytes in 256 KiB writes, uploads read and dropped. */
const BARE_SERVER = `
const http = require("node:http");
const crypto = require("node:crypto");
const random = crypto.randomBytes(4 * 1024 * 1024 + 256 * 1024);
const s = http.createServer((req, res) => {
  if (req.method === "POST") {
    let n = 0;
    req.on("data", (c) => (n += c.length));
    req.on("end", () => res.end(JSON.stringify({ bytes: n })));
    return;
  }
  const bytes = Number(new URL(req.url, "http://x").searchParams.get("bytes"));
  res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": bytes });
  let sent = 0;
  const pump = () => {
    while (sent < bytes) {
      const n = Math.min(256 * 1024, bytes - sent);
      const at = sent % (4 * 1024 * 1024);
      sent += n;
      if (!res.write(random.subarray(at, at + n))) return void res.once("drain", pump);
    }
    res.end();
  };
  pump();
});
s.keepAliveTimeout = 70000;
s.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + s.address().port));
`;

function download(origin: string, bytes: number, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(`${origin}/stress/down?bytes=${bytes}`, { agent }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`download answered ${res.statusCode}`));
        res.resume();
        res.on("end", () => resolve());
      })
      .on("error", reject);
  });
}

const CHUNK = Buffer.alloc(MIB, 7);

function upload(origin: string, bytes: number, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${origin}/stress/up`,
      { method: "POST", agent, headers: { "Content-Length": String(bytes) } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`upload answered ${res.statusCode}`));
        res.resume();
        res.on("end", () => resolve());
      },
    );
    req.on("error", reject);
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const n = Math.min(CHUNK.length, bytes - sent);
        sent += n;
        if (!req.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/** Bytes per request: the load paths take at most 64 MiB a request; a stream is a loop of them, as the page's are. */
const REQUEST_BYTES = 32 * MIB;

/** One stream: `bytes` in requests of REQUEST_BYTES, one after another. */
async function stream(dir: "down" | "up", origin: string, bytes: number, agent: http.Agent): Promise<void> {
  for (let left = bytes; left > 0; left -= REQUEST_BYTES)
    await (dir === "down" ? download : upload)(origin, Math.min(REQUEST_BYTES, left), agent);
}

/** One round: STREAMS streams of `bytes` each to `origin`; Gbit/s and the server's CPU seconds per Gbit. */
async function round(
  dir: "down" | "up",
  origin: string,
  bytes: number,
  pid: number,
): Promise<{ gbps: number; cpuPerGbit: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: STREAMS });
  const cpu0 = threadsCpuS([pid]);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: STREAMS }, () => stream(dir, origin, bytes, agent)));
  const seconds = (performance.now() - t0) / 1000;
  const cpuS = threadsCpuS([pid]) - cpu0;
  agent.destroy();
  const gbit = (STREAMS * bytes * 8) / 1e9;
  return { gbps: gbit / seconds, cpuPerGbit: cpuS / gbit };
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { rounds, streamMib } = SIZES[size];
  const bytes = streamMib * MIB;
  const bare = await startNodeServer(["-e", BARE_SERVER]);
  // Lab run: no per-address budget or rate, so the load paths move what the machine can.
  const tp = await startServerProcess(["--db", ":memory:", "--no-ping", "--no-rate-limit"]);
  const results: Record<string, { gbps: number[]; cpu: number[] }> = {};
  try {
    const cfg = (await (await fetch(`${tp.url}/api/config`)).json()) as {
      servers: { stress?: { downPort: number; upPort: number } }[];
    };
    const ports = cfg.servers[0]?.stress;
    if (ports === undefined) throw new Error("tailprobe offers no load paths");
    const origins = {
      tailprobe: { down: `http://127.0.0.1:${ports.downPort}`, up: `http://127.0.0.1:${ports.upPort}` },
      bare: { down: bare.url, up: bare.url },
    };
    const pids = { tailprobe: tp.child.pid!, bare: bare.child.pid! };
    for (const dir of ["down", "up"] as const) {
      for (const name of ["bare", "tailprobe"] as const) await round(dir, origins[name][dir], 4 * MIB, pids[name]); // warm-up
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? (["bare", "tailprobe"] as const) : (["tailprobe", "bare"] as const);
        for (const name of order) {
          const x = await round(dir, origins[name][dir], bytes, pids[name]);
          const key = `${name} ${dir}`;
          results[key] ??= { gbps: [], cpu: [] };
          results[key].gbps.push(x.gbps);
          results[key].cpu.push(x.cpuPerGbit);
        }
      }
    }
  } finally {
    await bare.stop();
    await tp.stop();
  }
  const rows: BenchRow[] = [];
  console.log(`${STREAMS} streams × ${streamMib} MiB, ${rounds} rounds; server CPU s per Gbit moved (all threads)`);
  for (const dir of ["down", "up"] as const) {
    const t = results[`tailprobe ${dir}`]!;
    const b = results[`bare ${dir}`]!;
    const what = dir === "down" ? "download" : "upload";
    console.log(
      `${what}: tailprobe ${median(t.gbps).toFixed(2)} Gbit/s, ${median(t.cpu).toFixed(3)} s/Gbit; bare ${median(b.gbps).toFixed(2)} Gbit/s, ${median(b.cpu).toFixed(3)} s/Gbit`,
    );
    rows.push(
      {
        figure: `${what} (Gbit/s)`,
        value: median(t.gbps),
        baseline: median(b.gbps),
        goal: `≥ ${THROUGHPUT_GBPS_MIN} Gbit/s`,
        pass: size === "smoke" ? null : median(t.gbps) >= THROUGHPUT_GBPS_MIN,
      },
      {
        figure: `${what}, server CPU per Gbit (s)`,
        value: median(t.cpu),
        baseline: median(b.cpu),
        goal: `≤ ${CPU_RATIO_MAX}× bare`,
        pass: size === "smoke" ? null : median(t.cpu) <= CPU_RATIO_MAX * median(b.cpu),
      },
    );
  }
  return rows;
}

export const bench: Benchmark = {
  name: "stress-load",
  about:
    "The stress test's load paths (budgets off) beside a bare node:http stream of the same bytes: 4 streams, loopback.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
