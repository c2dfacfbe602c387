// Does tailprobe's probe page add anything to what it measures? It and a bare
// page (bench/bare-page/bare.html: the same seven probes a second at the same
// slot offsets, and nothing else) run in one Chromium against the same two
// servers, in alternating rounds. Per method and server: both medians, both
// p90s and the excess; the probe page's JavaScript, gzipped (at start, and
// the stress test's, loaded on demand, beside it). The long part
// (`npm run bench -- long`) keeps each page longer, for each page's main-thread
// cost (CDP Performance.getMetrics TaskDuration per wall second), left alone
// as a tab left open is, and heap.
// Run after npm run build: npm run bench -- bare-page  (or: npx tsx bench/bare-page.ts [smoke|full|long])
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import type { CDPSession, Page } from "playwright-core";
import { bootstrapPercentileDiff } from "../shared/forensics/bootstrap.js";
import { mulberry32 as prng } from "../shared/prng.js";
import { summarize } from "../shared/stats.js";
import { gzippedScriptBytes } from "../testkit/bundle.js";
import { launchBrowser } from "../testkit/browser.js";
import { waitForDelivered } from "../testkit/delivered.js";
import { startServerProcess, type ServerProcess, waitForPeerName } from "../testkit/server-process.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";
import { ATTENDED_MS } from "../client/src/probe/render-cadence.js";
import { loadSampleTables } from "../testkit/sample-table.js";

/**
 * Rounds per page, seconds per round and the probe interval. Both pages probe
 * at 2 Hz in the full run: 120 samples per method and page in the same two
 * minutes. At 1 Hz (60 samples) the p90 excess's own 95 % bootstrap interval
 * spanned about −0.4 to +1.1 ms, wider than the 0.5 ms goal, so one run could
 * miss it by chance (+0.58 ms, then +0.25 in the next run of the same tree);
 * twice the rate narrows it by √2 and doubles the page's own work per second
 * beside its probes, which makes the comparison stricter, not looser. Each
 * round falls mostly within the probe page's first ATTENDED_MS, while it
 * redraws its live view every tick: its busier state, so the latency goals
 * are judged there.
 */
const SIZES = {
  smoke: { rounds: 1, seconds: 5, intervalMs: 1000 },
  full: { rounds: 2, seconds: 30, intervalMs: 500 },
} as const;
/** The long part: the page is left alone from ATTENDED_MS on, so most of each round is measured as a tab left open. */
const LONG_SIZES = { smoke: { rounds: 1, seconds: 5 }, full: { rounds: 2, seconds: 75 } } as const;
/** Rounds start this long after the page loads: connections open, first ticks past (s). */
export const WARMUP_S = 4;
/** Goals from issue 12 (ms, and % of one core). */
export const MEDIAN_EXCESS_MS_MAX = { ws: 0.2, xhr: 0.3, jsonp: 0.3, best2: 0.3 } as const;
export const P90_EXCESS_MS_MAX = 0.5;
/**
 * The probe page left alone may take this many points of a core over the bare
 * page in the same run (an absolute 1.5 % could not be told from the bare
 * page's own spread between runs on two shared cores: 1.16-3.87 %).
 */
const MAIN_THREAD_EXCESS_POINTS_MAX = 1;
const PAGE_JS_GZIP_KB_MAX = 30;
/** tailprobe's probe order and slot offsets: 7 probes in 8 slots of the interval (the 8th is housekeeping). */
export const SERIES = [
  ["xhr", "A"],
  ["xhr", "B"],
  ["jsonp", "A"],
  ["jsonp", "B"],
  ["ws", "A"],
  ["ws", "B"],
  ["best2", "A+B"],
] as const;
/** The slots' offsets within an interval of `intervalMs`. */
export const offsetsMs = (intervalMs: number) =>
  SERIES.map((_, i) => Math.floor((i * intervalMs) / (SERIES.length + 1)));
/** The bare page's address: both servers, its interval and slot offsets. */
export const bareUrl = (base: string, a: string, b: string, intervalMs = 1000) =>
  `${base}?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}&interval=${intervalMs}&offsets=${offsetsMs(intervalMs).join(",")}`;

const BARE_HTML = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "bare-page", "bare.html"));

interface Cost {
  taskS: number;
  wallS: number;
  heapStartMB: number;
  heapEndMB: number;
}
export type Sample = { method: string; target: string; t: number; ms: number | null };

/** Serves the bare page, cross-origin isolated like tailprobe's pages. */
export function serveBare(): Promise<{ url: string; close(): void }> {
  const srv = http.createServer((_req, res) => {
    res.writeHead(200, {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Embedder-Policy": "require-corp",
    });
    res.end(BARE_HTML);
  });
  return new Promise((resolve) =>
    srv.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`, close: () => srv.close() }),
    ),
  );
}

async function metrics(cdp: CDPSession): Promise<Map<string, number>> {
  const { metrics: m } = await cdp.send("Performance.getMetrics");
  return new Map(m.map((x) => [x.name, x.value]));
}

/**
 * Keeps the page open for `seconds`, and measures its main thread over that
 * time, as one window or, given splitAtS, as two (before and after it).
 */
async function measureRound(page: Page, seconds: number, splitAtS?: number): Promise<Cost[]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const marks = [await metrics(cdp)];
  const waits =
    splitAtS !== undefined && splitAtS > 0 && splitAtS < seconds ? [splitAtS, seconds - splitAtS] : [seconds];
  for (const s of waits) {
    await page.waitForTimeout(s * 1000);
    marks.push(await metrics(cdp));
  }
  await cdp.detach();
  const get = (m: Map<string, number>, k: string) => m.get(k) ?? Number.NaN;
  return marks.slice(1).map((m1, i) => {
    const m0 = marks[i]!;
    return {
      taskS: get(m1, "TaskDuration") - get(m0, "TaskDuration"),
      wallS: get(m1, "Timestamp") - get(m0, "Timestamp"),
      heapStartMB: get(m0, "JSHeapUsedSize") / 2 ** 20,
      heapEndMB: get(m1, "JSHeapUsedSize") / 2 ** 20,
    };
  });
}

export function storedSamples(a: ServerProcess, fromMs: number, toMs: number): Sample[] {
  const db = new Database(a.dbPath, { readonly: true });
  try {
    // Raw samples are blocks (store version 7): read through the decoded TEMP view.
    return loadSampleTables(db)
      .prepare(
        "SELECT method, target, t, CASE WHEN outcome = 'ok' THEN ms END AS ms FROM samples WHERE t >= ? AND t < ? AND method IN ('xhr', 'jsonp', 'ws', 'best2')",
      )
      .all(fromMs, toMs) as Sample[];
  } finally {
    db.close();
  }
}

interface Measured {
  samples: { tailprobe: Sample[]; bare: Sample[] };
  costs: { tailprobe: Cost[]; tailprobeAttended: Cost[]; tailprobeAlone: Cost[]; bare: Cost[] };
}

/** Both pages in alternating rounds: their stored (or kept) samples and their main-thread costs. */
async function measurePages(rounds: number, seconds: number, intervalMs = 1000): Promise<Measured> {
  const b = await startServerProcess(["--name", "B", "--no-ping"]);
  const a = await startServerProcess([
    "--name",
    "A",
    "--no-ping",
    "--interval-ms",
    String(intervalMs),
    "--peer",
    b.url,
  ]);
  const bare = await serveBare();
  const browser = await launchBrowser();
  const samples = { tailprobe: [] as Sample[], bare: [] as Sample[] };
  // The probe page's live view is drawn every second for ATTENDED_MS after
  // load (or input), then every 10 s (client/src/probe/render-cadence.ts):
  // its rounds are measured in those two windows.
  const costs = {
    tailprobe: [] as Cost[],
    tailprobeAttended: [] as Cost[],
    tailprobeAlone: [] as Cost[],
    bare: [] as Cost[],
  };
  const splitAtS = ATTENDED_MS / 1000 - WARMUP_S + 1;
  try {
    await waitForPeerName(a, "B");
    for (let r = 0; r < rounds; r++) {
      // tailprobe's page: its samples are what it stored at home.
      const tp = await browser.context.newPage();
      await tp.goto(`${a.url}/`);
      await tp.waitForTimeout(WARMUP_S * 1000);
      const from = Date.now();
      const windows = await measureRound(tp, seconds, splitAtS);
      costs.tailprobe.push(...windows);
      if (windows.length === 2) {
        costs.tailprobeAttended.push(windows[0]!);
        costs.tailprobeAlone.push(windows[1]!);
      }
      const to = Date.now();
      await waitForDelivered(tp, a.dbPath);
      await tp.close();
      samples.tailprobe.push(...storedSamples(a, from, to));

      // The bare page: its samples are what it kept in window.bare.
      const bp = await browser.context.newPage();
      await bp.goto(bareUrl(bare.url, a.url, b.url, intervalMs));
      await bp.waitForFunction(() => (window as unknown as { bare: { ready: boolean } }).bare.ready, undefined, {
        timeout: 10_000,
      });
      await bp.waitForTimeout(WARMUP_S * 1000);
      const bFrom = Date.now();
      costs.bare.push(...(await measureRound(bp, seconds)));
      const bTo = Date.now();
      const got = (await bp.evaluate(
        () => (window as unknown as { bare: { samples: Sample[] } }).bare.samples,
      )) as Sample[];
      samples.bare.push(...got.filter((s) => s.t >= bFrom && s.t < bTo));
      await bp.close();
    }
  } finally {
    await browser.close();
    bare.close();
    await a.stop();
    await b.stop();
  }
  return { samples, costs };
}

const pct = (c: Cost[]) => (100 * c.reduce((s, x) => s + x.taskS, 0)) / c.reduce((s, x) => s + x.wallS, 0);
/** MB per minute of probing, over all rounds (each round is a fresh page). */
const heapTrend = (c: Cost[]) =>
  c.reduce((s, x) => s + (x.heapEndMB - x.heapStartMB), 0) / (c.reduce((s, x) => s + x.wallS, 0) / 60);

/** The latency figures: each method's median and p90 on both pages. */
async function run(size: BenchSize): Promise<BenchRow[]> {
  const { rounds, seconds, intervalMs } = SIZES[size];
  const { samples } = await measurePages(rounds, seconds, intervalMs);
  const judge = size === "full";
  const rows: BenchRow[] = [];
  const lines = [
    "method · server   n tp/bare   p50 tailprobe  p50 bare  excess   p90 tailprobe  p90 bare  excess  [95 % interval]",
  ];
  const signed = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(3);
  for (const [method, target] of SERIES) {
    const ms = (set: Sample[]) =>
      set.filter((s) => s.method === method && s.target === target && s.ms !== null).map((s) => s.ms!);
    const tp = summarize(ms(samples.tailprobe));
    const bp = summarize(ms(samples.bare));
    if (tp.p50 === null || bp.p50 === null || tp.p90 === null || bp.p90 === null)
      throw new Error(`no ok samples for ${method} ${target}`);
    // How far the p90's excess moves with which samples a run happens to take: its spread, beside the goal.
    const p90Interval = bootstrapPercentileDiff(ms(samples.tailprobe), ms(samples.bare), 90, { random: prng(12) });
    const f = (v: number) => v.toFixed(3).padStart(9);
    lines.push(
      `${`${method} · ${target}`.padEnd(16)} ${`${tp.count}/${bp.count}`.padStart(9)} ${f(tp.p50)} ${f(bp.p50)} ${signed(tp.p50 - bp.p50)}   ${f(tp.p90)} ${f(bp.p90)} ${signed(tp.p90 - bp.p90)}  [${signed(p90Interval.lo)}, ${signed(p90Interval.hi)}]`,
    );
    for (const [stat, value, base, max] of [
      ["median", tp.p50, bp.p50, MEDIAN_EXCESS_MS_MAX[method]],
      ["p90", tp.p90, bp.p90, P90_EXCESS_MS_MAX],
    ] as const)
      rows.push({
        figure: `${method} ${target} ${stat} (ms)`,
        value,
        baseline: base,
        goal: `≤ bare + ${max} ms`,
        pass: judge ? value - base <= max : null,
      });
  }
  const { startBytes, onDemandBytes } = gzippedScriptBytes("index.html");
  const jsKB = startBytes / 1024;
  const stressKB = onDemandBytes / 1024;
  lines.push(
    "",
    `probe page JavaScript: ${jsKB.toFixed(1)} KB gzipped at start (+ ${stressKB.toFixed(1)} KB on demand for a stress test); bare page: ${(BARE_HTML.length / 1024).toFixed(1)} KB inline, uncompressed`,
  );
  console.log(
    `${rounds} round(s) of ${seconds} s per page at ${1000 / intervalMs} Hz, alternating, one Chromium, A and B on loopback (ms)\n${lines.join("\n")}`,
  );
  rows.push({
    figure: "probe page JavaScript, gzipped (KB)",
    value: jsKB,
    baseline: null,
    goal: `≤ ${PAGE_JS_GZIP_KB_MAX} KB`,
    pass: judge ? jsKB <= PAGE_JS_GZIP_KB_MAX : null,
  });
  // Loaded only when a test begins (client/src/probe/stress/control.ts): what a tab that runs one adds.
  rows.push({
    figure: "stress test JavaScript, loaded on demand, gzipped (KB)",
    value: stressKB,
    baseline: null,
    goal: "(reported)",
    pass: null,
  });
  return rows;
}

/** The main-thread figures: what each page costs its main thread, the probe page mostly left alone. */
async function runLong(size: BenchSize): Promise<BenchRow[]> {
  const { rounds, seconds } = LONG_SIZES[size];
  const { costs } = await measurePages(rounds, seconds);
  const judge = size === "full";
  const alone = costs.tailprobeAlone.length > 0 ? pct(costs.tailprobeAlone) : null;
  const bare = pct(costs.bare);
  const heaps = (c: Cost[]) => c.map((x) => `${x.heapStartMB.toFixed(2)}→${x.heapEndMB.toFixed(2)}`).join(", ");
  console.log(
    `${rounds} round(s) of ${seconds} s per page, alternating, one Chromium, A and B on loopback\n` +
      `main thread: probe page ${pct(costs.tailprobe).toFixed(2)} % of a core` +
      (alone !== null
        ? ` (first ${ATTENDED_MS / 1000} s after load ${pct(costs.tailprobeAttended).toFixed(2)} %, left alone ${alone.toFixed(2)} %)`
        : "") +
      `, bare page ${bare.toFixed(2)} %\n` +
      `JS heap: probe page ${heaps(costs.tailprobe)} MB (${heapTrend(costs.tailprobe).toFixed(3)} MB/min); ` +
      `bare page ${heaps(costs.bare)} MB (${heapTrend(costs.bare).toFixed(3)} MB/min)`,
  );
  const rows: BenchRow[] = [
    {
      figure: "main thread (% of a core)",
      value: pct(costs.tailprobe),
      baseline: bare,
      goal: "(reported)",
      pass: null,
    },
  ];
  // A page left running for days is left alone: that is what the goal is judged on.
  if (alone !== null)
    rows.push({
      figure: "main thread, left alone (% of a core)",
      value: alone,
      baseline: bare,
      goal: `≤ bare + ${MAIN_THREAD_EXCESS_POINTS_MAX} point of a core`,
      pass: judge ? alone - bare <= MAIN_THREAD_EXCESS_POINTS_MAX : null,
    });
  rows.push({
    figure: "JS heap growth (MB/min)",
    value: heapTrend(costs.tailprobe),
    baseline: heapTrend(costs.bare),
    goal: "(reported: flat)",
    pass: null,
  });
  return rows;
}

export const bench: Benchmark = {
  name: "bare-page",
  about:
    "The probe page beside a bare page (the baseline) doing the same seven probes, both at 2 Hz, alternated in one Chromium against the same servers.",
  run,
  long: {
    about:
      "The same two pages in 75 s rounds, the probe page left alone after 30 s: main-thread time per second (CDP TaskDuration), heap.",
    run: runLong,
  },
};
if (isMain(import.meta.url)) await runAlone(bench);
