// Does a burst of ingests stall the echo path? A 1 Hz prober's sample is only
// as good as the echo server's promptness, and SQLite writes run on the same
// event loop. Paced GET /echo probes (one every 5 ms on a keep-alive
// connection) against a real `tailprobe serve`, in rounds alternating quiet
// and "under ingest" (testkit/ingest-burst.ts posting 200-sample batches,
// 4 at a time, from another process). Prints echo latency and the server's own
// reported event-loop lag (Server-Timing) for both, and their ratios. A third
// phase runs busy loops using the CPU the ingest took (server and load script,
// over as many threads) and nothing else: the tail that much load costs on
// these two cores whatever does the work.
// Issue 13's goal: while 20,000 samples/s are ingested, /echo and /ws p99 stay within 1.5× of quiet.
// Run: npm run build:server && npm run bench -- ingest-stall  (or: npx tsx bench/ingest-stall.ts [smoke|full])
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { summarize } from "../shared/stats.js";
import { startServerProcess } from "../testkit/server-process.js";
import { pacedEcho, pacedWsEcho } from "./paced-echo.js";
import { otherPolicies, threadsCpuS } from "./proc-usage.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

/** 100 batches/s of 200 samples: the 20,000 samples/s of the goal. */
const SIZES = {
  smoke: { rounds: 1, phaseSeconds: 1, rate: "100" },
  full: { rounds: 3, phaseSeconds: 5, rate: "100" },
} as const;
const P99_RATIO_MAX = 1.5;
/** Threads the ingest keeps busy: the server's event loop and writer thread, the load script. */
const INGEST_THREADS = 3;

/** One phase's paced probes, pooled over the rounds: /echo round trips and the server's reported lag, /ws round trips. */
interface Phase {
  ms: number[];
  lag: number[];
  ws: number[];
}
const newPhase = (): Phase => ({ ms: [], lag: [], ws: [] });

/** Paced /echo and /ws probes for `seconds`, added to `into`. */
async function measure(url: string, seconds: number, into: Phase): Promise<void> {
  const [echo, ws] = await Promise.all([pacedEcho(url, seconds), pacedWsEcho(url, seconds)]);
  into.ms.push(...echo.ms);
  into.lag.push(...echo.lag);
  into.ws.push(...ws);
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { rounds: ROUNDS, phaseSeconds: PHASE_SECONDS, rate: RATE } = SIZES[size];
  const server = await startServerProcess(["--no-ping", "--no-rate-limit"], { echoStderr: true });
  const dir = path.dirname(server.dbPath);
  const quiet = newPhase();
  const busy = newPhase();
  const spun = newPhase();
  let ingested = 0;
  /** CPU the ingest took (server and load script, every thread), as a fraction of a core, per round. */
  const ingestCores: number[] = [];
  /** Policies other than the default seen on the server's threads at the end of each phase under ingest (its writer thread's). */
  const policies = new Set<string>();
  try {
    // Warm the server's echo paths (JIT) and the prober's sockets first, so
    // the first quiet phase does not carry the server's start in its tail.
    await Promise.all([pacedEcho(server.url, 1), pacedWsEcho(server.url, 1)]);
    for (let round = 0; round < ROUNDS; round++) {
      await measure(server.url, PHASE_SECONDS, quiet);
      // Its line per acknowledged batch goes to a file, read after the phase: through a pipe, 100 lines a
      // second would wake this process, whose event loop times the probes, as often.
      const ackLog = path.join(dir, `acks-${round}.log`);
      const ackFd = fs.openSync(ackLog, "w");
      const burst = spawn(
        process.execPath,
        ["--import", "tsx", "testkit/ingest-burst.ts", server.url, "100000", "4", RATE],
        { stdio: ["ignore", ackFd, "inherit"] },
      );
      fs.closeSync(ackFd);
      // Let the burst reach full speed before measuring.
      await new Promise((r) => setTimeout(r, 1000));
      const cpu0 = threadsCpuS([server.child.pid!, burst.pid!]);
      const t0 = performance.now();
      await measure(server.url, PHASE_SECONDS, busy);
      const cores = (threadsCpuS([server.child.pid!, burst.pid!]) - cpu0) / ((performance.now() - t0) / 1000);
      for (const p of otherPolicies(server.child.pid!)) policies.add(p);
      burst.kill("SIGKILL");
      await new Promise((r) => burst.once("exit", r));
      ingested +=
        fs
          .readFileSync(ackLog, "utf8")
          .split("\n")
          .filter((l) => l.startsWith("ACK")).length * 200;
      // The same CPU spent doing nothing, in processes of their own: what any
      // load of that size costs the echo's tail on this machine. Split over as
      // many threads as the ingest keeps busy (the server's event loop, its
      // writer thread, the load script): on two cores, how often both are
      // taken when the echo wakes matters more than the sum.
      ingestCores.push(cores);
      const loopCount = Math.max(INGEST_THREADS, Math.ceil(cores));
      const loops = Array.from({ length: loopCount }, () =>
        spawn(
          process.execPath,
          ["--import", "tsx", "bench/busy-loop.ts", (cores / loopCount).toFixed(3), String(PHASE_SECONDS + 10)],
          { stdio: "ignore" },
        ),
      );
      await new Promise((r) => setTimeout(r, 1000));
      await measure(server.url, PHASE_SECONDS, spun);
      for (const loop of loops) loop.kill("SIGKILL");
      await Promise.all(
        loops.map((loop) => new Promise((r) => (loop.exitCode !== null ? r(null) : loop.once("exit", r)))),
      );
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const q = summarize(quiet.ms);
  const b = summarize(busy.ms);
  const f = (x: number | null) => (x === null ? "–" : x.toFixed(3));
  const ratio = (x: number | null, y: number | null) =>
    x === null || y === null || x === 0 ? "–" : (y / x).toFixed(2);
  const writerPolicy = policies.size === 0 ? "the default policy" : [...policies].join(" / ");
  console.log(
    `ingest-stall: ${RATE} batches/s, ${ROUNDS} rounds × ${PHASE_SECONDS} s per phase; ${ingested} samples ingested under load (${(ingested / (ROUNDS * (PHASE_SECONDS + 1))).toFixed(0)}/s); the server's writer thread at ${writerPolicy}`,
  );
  console.log(`| phase | echo n | p50 ms | p99 ms | p99.9 ms | max ms | server lag max ms |`);
  console.log(`|---|---|---|---|---|---|---|`);
  const l = summarize(spun.ms);
  const cores = summarize(ingestCores).p50 ?? 0;
  const line = (name: string, e: ReturnType<typeof summarize>, phase: Phase) =>
    console.log(
      `| ${name} | ${e.count} | ${f(e.p50)} | ${f(e.p99)} | ${f(e.p999)} | ${f(e.max)} | ${Math.max(0, ...phase.lag).toFixed(1)} |`,
    );
  line("quiet", q, quiet);
  line("under ingest", b, busy);
  line(`busy loops, ${(cores * 100).toFixed(0)} % of a core`, l, spun);
  console.log(
    `ratio under ingest / quiet: p50 ${ratio(q.p50, b.p50)}, p99 ${ratio(q.p99, b.p99)}, max ${ratio(q.max, b.max)}`,
  );
  const rate = (ingested / (ROUNDS * (PHASE_SECONDS + 1))).toFixed(0);
  const qw = summarize(quiet.ws);
  const bw = summarize(busy.ws);
  const lw = summarize(spun.ws);
  console.log(`/ws p99 quiet ${f(qw.p99)} ms, under ingest ${f(bw.p99)} ms, beside the busy loops ${f(lw.p99)} ms`);
  const row = (path: string, busyP99: number, quietP99: number): BenchRow => ({
    figure: `${path} p99 under ${rate} samples/s, writer ${writerPolicy} (ms; baseline: quiet)`,
    value: busyP99,
    baseline: quietP99,
    goal: `≤ ${P99_RATIO_MAX}× quiet at 20,000 samples/s`,
    pass: size === "smoke" ? null : busyP99 <= P99_RATIO_MAX * quietP99,
  });
  const floor = (path: string, loopP99: number, quietP99: number): BenchRow => ({
    figure: `${path} p99 beside ${INGEST_THREADS} busy loops taking the ingest's ${(cores * 100).toFixed(0)} % of a core (ms; baseline: quiet)`,
    value: loopP99,
    baseline: quietP99,
    goal: "(reported: what that much CPU costs)",
    pass: null,
  });
  return [
    row("/echo", b.p99!, q.p99!),
    floor("/echo", l.p99!, q.p99!),
    row("/ws", bw.p99!, qw.p99!),
    floor("/ws", lw.p99!, qw.p99!),
  ];
}

export const bench: Benchmark = {
  name: "ingest-stall",
  about:
    "/echo and /ws p99, paced every 5 ms, while another process posts 20,000 samples/s, beside quiet phases and busy loops using as much CPU.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
