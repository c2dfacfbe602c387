// Where does a page's main-thread time go? Issue 12 sets a budget (≤ 1.5 % of
// a core at 1 Hz) that a JavaScript profile alone cannot explain: style,
// layout, paint and the network's own tasks count too. Records a Chrome trace
// of the probe page (or the bare page, with --bare) and prints the renderer
// main thread's self time per trace event, per second of wall time.
// Run: npm run build && npx tsx scripts/dev/main-thread-breakdown.mts [seconds, default 30] [--bare] [--metrics-only]
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { launchBrowser } from "../../tests/helpers/browser.js";
import { startServerProcess, waitFor } from "../../tests/helpers/server-process.js";

const SECONDS = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 30);
const BARE = process.argv.includes("--bare");
/** Only Performance.getMetrics, no trace: the trace's own overhead inflates task time. */
const METRICS_ONLY = process.argv.includes("--metrics-only");

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

const b = await startServerProcess(["--name", "B", "--no-ping"]);
const a = await startServerProcess(["--name", "A", "--no-ping", "--peer", b.url]);
const browser = await launchBrowser();
let bare: http.Server | undefined;
try {
  await waitFor(async () => {
    const cfg = (await (await fetch(`${a.url}/api/config`)).json()) as { servers: { name: string }[] };
    return cfg.servers.some((s) => s.name === "B") ? true : undefined;
  }, 10_000, "A to learn B's name");
  let url = `${a.url}/`;
  if (BARE) {
    const html = fs.readFileSync(new URL("../../bench/bare-page/bare.html", import.meta.url));
    bare = http.createServer((_q, res) => {
      res.writeHead(200, { "Content-Type": "text/html", "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" });
      res.end(html);
    });
    await new Promise<void>((r) => bare!.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/?a=${encodeURIComponent(a.url)}&b=${encodeURIComponent(b.url)}&offsets=0,125,250,375,500,625,750`;
  }
  const page = await browser.context.newPage();
  await page.goto(url);
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Performance.enable");
  await page.waitForTimeout(5000);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (e) => events.push(...(e.value as unknown as TraceEvent[])));
  const done = new Promise<void>((r) => cdp.once("Tracing.tracingComplete", () => r()));
  const m0 = (await cdp.send("Performance.getMetrics")).metrics;
  if (!METRICS_ONLY) await cdp.send("Tracing.start", {
    categories: "devtools.timeline,disabled-by-default-devtools.timeline,v8,blink,toplevel",
    transferMode: "ReportEvents",
  });
  await page.waitForTimeout(SECONDS * 1000);
  if (!METRICS_ONLY) {
    await cdp.send("Tracing.end");
    await done;
  }
  const m1 = (await cdp.send("Performance.getMetrics")).metrics;
  const metric = (ms: typeof m0, name: string) => ms.find((x) => x.name === name)?.value ?? NaN;
  const wallS = metric(m1, "Timestamp") - metric(m0, "Timestamp");
  const taskS = metric(m1, "TaskDuration") - metric(m0, "TaskDuration");
  console.log(`${BARE ? "bare" : "probe"} page: main thread ${((100 * taskS) / wallS).toFixed(2)} % of a core over ${wallS.toFixed(1)} s (Performance.getMetrics)`);

  if (!METRICS_ONLY) printBreakdown(events);
} finally {
  await browser.close();
  bare?.close();
  await a.stop();
  await b.stop();
}

/** Self time per trace event on the renderer main thread, per second of the trace. */
function printBreakdown(events: TraceEvent[]): void {
  const main = events.find((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain" && events.some((x) => x.pid === e.pid && x.name === "TracingStartedInBrowser" || x.pid === e.pid && x.name === "FunctionCall"));
  if (main === undefined) throw new Error("no renderer main thread in the trace");
  const complete = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.dur !== undefined).sort((x, y) => x.ts - y.ts || (y.dur ?? 0) - (x.dur ?? 0));
  // Self time: an event's duration less its direct children's.
  const self = new Map<string, number>();
  const stack: TraceEvent[] = [];
  const childTime = new Map<TraceEvent, number>();
  for (const e of complete) {
    while (stack.length > 0 && stack[stack.length - 1]!.ts + stack[stack.length - 1]!.dur! <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent !== undefined) childTime.set(parent, (childTime.get(parent) ?? 0) + e.dur!);
    stack.push(e);
  }
  for (const e of complete) self.set(e.name, (self.get(e.name) ?? 0) + e.dur! - (childTime.get(e) ?? 0));
  const tasks = complete.filter((e) => e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask");
  const taskMs = tasks.reduce((s, e) => s + e.dur!, 0) / 1000;
  console.log(`trace: ${tasks.length} tasks, ${taskMs.toFixed(0)} ms, ${((100 * taskMs) / 1000 / SECONDS).toFixed(2)} % of a core`);
  for (const [k, v] of [...self.entries()].sort((x, y) => y[1] - x[1]).slice(0, 25))
    console.log(`  ${(v / 1000 / SECONDS).toFixed(3).padStart(8)} ms/s  ${k}`);
}
