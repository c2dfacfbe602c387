// How many tabs one tailprobe server holds, as a curve: simulated probe tabs
// (bench/capacity-tabs.ts, in their own process, from many loopback
// addresses) in steps, and at each step the echo latency a paced prober in
// this process sees beside the same prober against the idle server, the
// server's CPU and memory, samples stored per second and the ping processes
// it runs. Then the largest step is held to show memory stays flat, and every
// acknowledged sample is counted in the database.
// Issue 13's goal: one process holds 2,000 tabs with echo p99 ≤ 10 ms, no
// sample lost and memory flat for 5 minutes; 1,000 addresses must not mean
// 1,000 ping processes.
// Run: npm run build:server && npm run bench -- capacity  (or: npx tsx bench/capacity.ts [smoke|full])
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import Database from "better-sqlite3";
import { summarize } from "../shared/stats.js";
import { startChild } from "./child-server.js";
import { pacedEcho, pacedWsEcho } from "./paced-echo.js";
import { childPids, procUsage } from "./proc-usage.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = {
  smoke: { steps: [20], addresses: 10, stepSeconds: 2, warmupSeconds: 1, holdSeconds: 3, settleMs: 1500 },
  // settleMs: after a step's tabs are opened, their first reports (every 5 s) and baselines start before measuring.
  // warmupSeconds: at the largest step before the hold, while the writer's page cache and the heaps fill (~3 minutes at 2,000 tabs).
  full: {
    steps: [250, 500, 1000, 2000],
    addresses: 500,
    stepSeconds: 15,
    warmupSeconds: 180,
    holdSeconds: 300,
    settleMs: 6000,
  },
} as const;
const ECHO_P99_MS_MAX = 10;
/**
 * The hold's memory, read as floors: each fifth's lowest RSS (not PSS: see procUsage), what is left after
 * the garbage collector ran (the peaks between collections move by ~90 MB at
 * 2,000 tabs, with when a collection happens to run). After the warm-up, the
 * last fifth's floor may exceed the first's by this much (fraction) and still
 * count as flat.
 */
const MEMORY_GROWTH_MAX = 0.1;
const MEMORY_WINDOWS = 5;
const MEMORY_SAMPLE_MS = 5000;

interface Totals {
  tabs: number;
  probes: number;
  probeErrors: number;
  timeouts: number;
  acked: number;
  duplicates: number;
  retried: number;
  refused: number;
  reportErrors: number;
  wsDrops: number;
  unsentAtStop?: number;
  errorKinds?: Record<string, number>;
  done?: boolean;
}

interface Step {
  tabs: number;
  echo: ReturnType<typeof summarize>;
  ws: ReturnType<typeof summarize>;
  cpuPct: number;
  memMb: number;
  storedPerS: number;
  pingMax: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run(size: BenchSize): Promise<BenchRow[]> {
  const S = SIZES[size];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tailprobe-capacity-"));
  const dbPath = path.join(dir, "capacity.db");
  // Default limits and ping on: the budgets must hold honest tabs, the pinger its bound.
  const server = await startChild(["bin/tailprobe.js", "serve", "--port", "0", "--db", dbPath], "tailprobe");
  const pid = server.child.pid!;
  const gen = spawn(process.execPath, ["--import", "tsx", "bench/capacity-tabs.ts", server.url, String(S.addresses)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let totals: Totals = {
    tabs: 0,
    probes: 0,
    probeErrors: 0,
    timeouts: 0,
    acked: 0,
    duplicates: 0,
    retried: 0,
    refused: 0,
    reportErrors: 0,
    wsDrops: 0,
  };
  readline.createInterface({ input: gen.stdout! }).on("line", (l) => (totals = JSON.parse(l) as Totals));
  const steps: Step[] = [];
  let idle: { echo: ReturnType<typeof summarize>; ws: ReturnType<typeof summarize> };
  let hold: { echo: ReturnType<typeof summarize>; floorsMb: number[]; peaksMb: number[]; pingMax: number } | null =
    null;
  let stored = 0;
  try {
    const [ie, iw] = await Promise.all([pacedEcho(server.url, S.stepSeconds), pacedWsEcho(server.url, S.stepSeconds)]);
    idle = { echo: summarize(ie.ms), ws: summarize(iw) };

    let pingMax = 0;
    const pingWatch = setInterval(() => (pingMax = Math.max(pingMax, childPids(pid).length)), 500);
    try {
      for (const tabs of S.steps) {
        gen.stdin!.write(`tabs ${tabs}\n`);
        await sleep(S.settleMs);
        pingMax = 0;
        const u0 = procUsage([pid]);
        const a0 = totals.acked;
        const t0 = performance.now();
        const [e, w] = await Promise.all([
          pacedEcho(server.url, S.stepSeconds),
          pacedWsEcho(server.url, S.stepSeconds),
        ]);
        const seconds = (performance.now() - t0) / 1000;
        const u1 = procUsage([pid]);
        steps.push({
          tabs,
          echo: summarize(e.ms),
          ws: summarize(w),
          cpuPct: (100 * (u1.cpuS - u0.cpuS)) / seconds,
          memMb: u1.pssMb,
          storedPerS: (totals.acked - a0) / seconds,
          pingMax,
        });
      }
      // The writer's page cache (64 MB) and the heaps fill for the first minutes at this load: growth a hold would misread.
      await sleep(S.warmupSeconds * 1000);
      // Hold the largest step: memory sampled throughout, echo measured in windows between.
      pingMax = 0;
      const mem: { atS: number; mb: number }[] = [];
      const h0 = performance.now();
      const sampleMemory = () => mem.push({ atS: (performance.now() - h0) / 1000, mb: procUsage([pid]).rssMb });
      sampleMemory();
      const memWatch = setInterval(
        sampleMemory,
        Math.min(MEMORY_SAMPLE_MS, (S.holdSeconds * 1000) / (2 * MEMORY_WINDOWS)),
      );
      const echoes: number[] = [];
      try {
        while (performance.now() - h0 < S.holdSeconds * 1000)
          echoes.push(...(await pacedEcho(server.url, Math.min(10, S.holdSeconds))).ms);
      } finally {
        clearInterval(memWatch);
        sampleMemory();
      }
      const windowS = S.holdSeconds / MEMORY_WINDOWS;
      const windows = Array.from({ length: MEMORY_WINDOWS }, (_, k) =>
        mem
          .filter((m) => m.atS >= k * windowS && (m.atS < (k + 1) * windowS || k === MEMORY_WINDOWS - 1))
          .map((m) => m.mb),
      );
      console.log(
        `memory over the hold (RSS MB at s): ${mem.map((m) => `${m.mb.toFixed(0)}@${m.atS.toFixed(0)}`).join(" ")}`,
      );
      hold = {
        echo: summarize(echoes),
        floorsMb: windows.map((w) => Math.min(...w)),
        peaksMb: windows.map((w) => Math.max(...w)),
        pingMax,
      };
    } finally {
      clearInterval(pingWatch);
    }
    gen.stdin!.write("stop\n");
    // Bounded: each tab tries its last reports for at most ~40 s (capacity-tabs.ts).
    for (let i = 0; i < 900 && totals.done !== true; i++) await sleep(100);
    if (totals.done !== true)
      throw new Error(
        `the tab generator did not finish its last reports within 90 s; its totals then: ${JSON.stringify(totals)}`,
      );
    const db = new Database(dbPath, { readonly: true });
    try {
      stored = (db.prepare("SELECT coalesce(sum(n), 0) AS n FROM raw_blocks").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } finally {
    gen.kill("SIGKILL");
    server.child.kill("SIGTERM");
    await new Promise((r) => (server.child.exitCode !== null ? r(null) : server.child.once("exit", r)));
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const f = (x: number | null) => (x === null ? "–" : x.toFixed(2));
  console.log(
    `capacity: ${S.addresses} loopback addresses, ${S.stepSeconds} s per step; idle echo p50 ${f(idle.echo.p50)} / p99 ${f(idle.echo.p99)} ms, /ws p99 ${f(idle.ws.p99)} ms`,
  );
  console.log(
    "| tabs | echo p50 ms | echo p99 ms | /ws p99 ms | server CPU % | server PSS MB | samples/s stored | ping processes |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const s of steps)
    console.log(
      `| ${s.tabs} | ${f(s.echo.p50)} | ${f(s.echo.p99)} | ${f(s.ws.p99)} | ${s.cpuPct.toFixed(0)} | ${s.memMb.toFixed(0)} | ${s.storedPerS.toFixed(0)} | ${s.pingMax} |`,
    );
  const top = S.steps.at(-1)!;
  const lost = totals.acked - stored;
  console.log(
    `hold at ${top} tabs for ${S.holdSeconds} s: echo p99 ${f(hold!.echo.p99)} ms; after ${S.warmupSeconds} s of warm-up, memory (RSS) floors ${hold!.floorsMb.map((m) => m.toFixed(0)).join(" → ")} MB, peaks ${hold!.peaksMb.map((m) => m.toFixed(0)).join(" → ")} MB (each ${S.holdSeconds / MEMORY_WINDOWS} s); ` +
      `${totals.acked} samples acknowledged, ${stored} stored, ${totals.refused} refused, ${totals.retried} retried after 429/503, ` +
      `${totals.unsentAtStop ?? 0} not yet sent when the tabs stopped, ` +
      `${totals.probes} probes (${totals.probeErrors} errors, ${totals.timeouts} timeouts), ${totals.wsDrops} WebSocket drops`,
  );
  if (totals.errorKinds !== undefined && Object.keys(totals.errorKinds).length > 0)
    console.log(`failures by kind: ${JSON.stringify(totals.errorKinds)}`);
  const judged = size === "full";
  const growth = hold!.floorsMb.at(-1)! / hold!.floorsMb[0]! - 1;
  const topStep = steps.at(-1)!;
  return [
    {
      figure: `/echo p99 with ${top} tabs from ${S.addresses} addresses, beside idle (ms)`,
      value: topStep.echo.p99!,
      baseline: idle.echo.p99!,
      goal: `≤ ${ECHO_P99_MS_MAX} ms`,
      pass: judged ? topStep.echo.p99! <= ECHO_P99_MS_MAX : null,
    },
    {
      figure: `server memory growth over a ${S.holdSeconds} s hold at ${top} tabs (%)`,
      value: Math.round(growth * 1000) / 10,
      baseline: null,
      goal: `flat: last ${S.holdSeconds / MEMORY_WINDOWS} s's floor ≤ ${MEMORY_GROWTH_MAX * 100} % over the first's`,
      pass: judged ? growth <= MEMORY_GROWTH_MAX : null,
    },
    {
      figure: `samples acknowledged but not stored, ${top} tabs (count)`,
      value: lost + totals.refused,
      baseline: null,
      goal: "0",
      pass: judged ? lost + totals.refused === 0 : null,
    },
    {
      figure: `ping processes at most, ${S.addresses} client addresses (count)`,
      value: Math.max(hold!.pingMax, ...steps.map((s) => s.pingMax)),
      baseline: S.addresses,
      goal: "far fewer than addresses (bound: --ping-processes)",
      pass: judged ? Math.max(hold!.pingMax, ...steps.map((s) => s.pingMax)) < S.addresses / 2 : null,
    },
  ];
}

export const bench: Benchmark = { name: "capacity", run };
if (isMain(import.meta.url)) await runAlone(bench);
