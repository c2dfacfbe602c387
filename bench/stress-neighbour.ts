// Does one page's stress test harm another client of the same server? On
// loopback the only thing the two share is the machine (two cores here):
// Chromium runs a stress test against the server while another client, this
// process, sends WebSocket echoes and HTTP /echo requests to the same server
// at 10 Hz each. Its latency during the loaded phases is compared with the
// same client's during the idle phase of the same run.
// Run: npm run build && npm run bench -- long stress-neighbour  (or: npx tsx bench/stress-neighbour.ts [smoke|full])
import http from "node:http";
import type { StressReport } from "../shared/contract/stress.js";
import { summarize } from "../shared/stats.js";
import { LOADED_PHASES } from "../shared/stress/phases.js";
import { launchBrowser } from "../testkit/browser.js";
import { startServerProcess, waitFor } from "../testkit/server-process.js";
import { echoOnce, openEchoSocket } from "../testkit/ws-echo.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { phaseMs: 3000, idleMs: 3000 }, full: { phaseMs: 15_000, idleMs: 15_000 } } as const;
/** The neighbour's rate per kind of request (ms between two). */
const NEIGHBOUR_INTERVAL_MS = 100;

interface Timed {
  t: number;
  ms: number;
}

async function neighbour(url: string, stop: AbortSignal): Promise<{ ws: Timed[]; http: Timed[] }> {
  const ws = await openEchoSocket(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const out = { ws: [] as Timed[], http: [] as Timed[] };
  let id = 0;
  const get = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(`${url}/echo`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve());
        })
        .on("error", reject);
    });
  while (!stop.aborted) {
    const t = Date.now();
    let s = performance.now();
    await echoOnce(ws, id++);
    out.ws.push({ t, ms: performance.now() - s });
    s = performance.now();
    await get();
    out.http.push({ t, ms: performance.now() - s });
    await new Promise((r) => setTimeout(r, NEIGHBOUR_INTERVAL_MS));
  }
  ws.close();
  agent.destroy();
  return out;
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { phaseMs, idleMs } = SIZES[size];
  // The server as deployed (its per-address rate included), with a byte budget loopback cannot spend.
  const server = await startServerProcess(["--no-ping", "--stress-bytes-per-hour", String(2 ** 50)]);
  const browser = await launchBrowser();
  const stop = new AbortController();
  let report: StressReport | undefined;
  let samples: { ws: Timed[]; http: Timed[] };
  try {
    const page = await browser.context.newPage();
    page.on("request", (r) => {
      if (!r.url().endsWith("/api/stress") || r.method() !== "POST") return;
      // The page reports after each phase: the last report says "complete".
      const sent = JSON.parse(r.postData() ?? "{}") as StressReport;
      if (sent.outcome !== "running") report = sent;
    });
    const running = neighbour(server.url, stop.signal);
    await page.goto(
      `${server.url}/?stress=1&stressPhaseMs=${phaseMs}&stressIdleMs=${idleMs}&stressCooldownMs=${Math.min(idleMs, 5000)}`,
    );
    await waitFor(() => report, idleMs + 3 * phaseMs + 30_000, "the stress test's report");
    stop.abort();
    samples = await running;
  } finally {
    stop.abort();
    await browser.close();
    await server.stop();
  }
  const r = report!;
  const within = (xs: Timed[], names: readonly string[]) =>
    xs.filter((x) => r.phases.some((p) => names.includes(p.name) && x.t >= p.start && x.t < p.end)).map((x) => x.ms);
  const rows: BenchRow[] = [];
  const down = r.phases.find((p) => p.name === "download");
  const gbit =
    down === undefined ? 0 : (down.downBytes.reduce((a, b) => a + b, 0) * 8) / ((down.end - down.start) / 1000) / 1e9;
  console.log(`stress test on loopback: download ${gbit.toFixed(2)} Gbit/s; the neighbour's latency (ms):`);
  for (const kind of ["ws", "http"] as const) {
    const idle = summarize(within(samples[kind], ["idle"]));
    const loaded = summarize(within(samples[kind], LOADED_PHASES));
    const label = kind === "ws" ? "WebSocket echo" : "HTTP /echo";
    console.log(
      `${label.padEnd(15)} idle n=${idle.count} p50 ${idle.p50?.toFixed(3)} p99 ${idle.p99?.toFixed(3)} | loaded n=${loaded.count} p50 ${loaded.p50?.toFixed(3)} p99 ${loaded.p99?.toFixed(3)}`,
    );
    if (loaded.p99 === null || idle.p99 === null) throw new Error(`no ${label} samples in a phase`);
    rows.push({
      figure: `${kind === "ws" ? "WebSocket" : "HTTP"} echo p99 (ms)`,
      value: loaded.p99,
      baseline: idle.p99,
      goal: "(reported)",
      pass: null,
    });
  }
  return rows;
}

export const bench: Benchmark = {
  name: "stress-neighbour",
  about: "Another client's echoes (10 Hz) during a Chromium stress test on loopback, beside the run's idle phase.",
  run,
  // A whole stress test: only in `npm run bench -- long` (bench/benchmarks.ts LONG_ONLY).
  long: {
    about: "Another client's echoes (10 Hz) during a Chromium stress test on loopback, beside the run's idle phase.",
    run,
  },
};
if (isMain(import.meta.url)) await runAlone(bench);
