// Where does a page's main-thread time go? Issue 12 sets a budget (≤ 1.5 % of
// a core at 1 Hz) that a JavaScript profile alone cannot explain: style,
// layout, paint and the network's own tasks count too. Records a Chrome trace
// of the probe page (or the bare page, with --bare) and prints the renderer
// main thread's self time per trace event, and whole tasks by the script
// function or event they ran, per second of wall time.
// Run: npm run build && npx tsx scripts/dev/main-thread-breakdown.mts [seconds, default 30] [--bare] [--metrics-only] [--left-alone]
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ATTENDED_MS } from "../../client/src/probe/render-cadence.js";
import { launchBrowser } from "../../testkit/browser.js";
import { startServerProcess, waitForPeerName } from "../../testkit/server-process.js";

const SECONDS = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 30);
const BARE = process.argv.includes("--bare");
/** Only Performance.getMetrics, no trace: the trace's own overhead inflates task time. */
const METRICS_ONLY = process.argv.includes("--metrics-only");
/** Start measuring once the page counts as left alone (its live view slows down), not 5 s after load. */
const LEFT_ALONE = process.argv.includes("--left-alone");

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { functionName?: string; url?: string; type?: string; frame?: string } };
}

const b = await startServerProcess(["--name", "B", "--no-ping"]);
const a = await startServerProcess(["--name", "A", "--no-ping", "--peer", b.url]);
const browser = await launchBrowser();
let bare: http.Server | undefined;
try {
  await waitForPeerName(a, "B");
  let url = `${a.url}/`;
  if (BARE) {
    const html = fs.readFileSync(new URL("../../bench/bare-page/bare.html", import.meta.url));
    bare = http.createServer((_q, res) => {
      res.writeHead(200, {
        "Content-Type": "text/html",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Embedder-Policy": "require-corp",
      });
      res.end(html);
    });
    await new Promise<void>((r) => bare!.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/?a=${encodeURIComponent(a.url)}&b=${encodeURIComponent(b.url)}&offsets=0,125,250,375,500,625,750`;
  }
  const page = await browser.context.newPage();
  await page.goto(url);
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Performance.enable");
  await page.waitForTimeout(LEFT_ALONE ? ATTENDED_MS + 5000 : 5000);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (e) => events.push(...(e.value as unknown as TraceEvent[])));
  const done = new Promise<void>((r) => cdp.once("Tracing.tracingComplete", () => r()));
  const m0 = (await cdp.send("Performance.getMetrics")).metrics;
  if (!METRICS_ONLY)
    await cdp.send("Tracing.start", {
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
  console.log(
    `${BARE ? "bare" : "probe"} page: main thread ${((100 * taskS) / wallS).toFixed(2)} % of a core over ${wallS.toFixed(1)} s (Performance.getMetrics)`,
  );

  if (!METRICS_ONLY) printBreakdown(events);
} finally {
  await browser.close();
  bare?.close();
  await a.stop();
  await b.stop();
}

/** Self time per trace event on the renderer main thread, per second of the trace. */
function printBreakdown(events: TraceEvent[]): void {
  const main = events.find(
    (e) =>
      e.name === "thread_name" &&
      e.args?.name === "CrRendererMain" &&
      events.some(
        (x) =>
          (x.pid === e.pid && x.name === "TracingStartedInBrowser") || (x.pid === e.pid && x.name === "FunctionCall"),
      ),
  );
  if (main === undefined) throw new Error("no renderer main thread in the trace");
  const complete = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.dur !== undefined)
    .sort((x, y) => x.ts - y.ts || (y.dur ?? 0) - (x.dur ?? 0));
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
  // Outermost tasks only: Chromium nests ThreadControllerImpl::RunTask and RunTask for one task.
  const tasks: TraceEvent[] = [];
  for (const e of complete) {
    if (e.name !== "RunTask" && e.name !== "ThreadControllerImpl::RunTask") continue;
    const last = tasks[tasks.length - 1];
    if (last === undefined || e.ts >= last.ts + last.dur!) tasks.push(e);
  }
  const taskMs = tasks.reduce((s, e) => s + e.dur!, 0) / 1000;
  console.log(
    `trace: ${tasks.length} tasks, ${taskMs.toFixed(0)} ms, ${((100 * taskMs) / 1000 / SECONDS).toFixed(2)} % of a core`,
  );
  for (const [k, v] of [...self.entries()].sort((x, y) => y[1] - x[1]).slice(0, 25))
    console.log(`  ${(v / 1000 / SECONDS).toFixed(3).padStart(8)} ms/s  ${k}`);
  // Whole tasks by what they ran: the first script function, event or named child inside each.
  const byKind = new Map<string, { ms: number; n: number }>();
  let i = 0;
  for (const t of tasks) {
    const end = t.ts + t.dur!;
    while (i < complete.length && complete[i]!.ts < t.ts) i++;
    let label = "(no child)";
    for (let j = i; j < complete.length && complete[j]!.ts < end; j++) {
      const e = complete[j]!;
      if (e === t || e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask") continue;
      const d = e.args?.data;
      if (e.name === "FunctionCall" && d !== undefined) {
        label = `FunctionCall ${d.functionName || "(anon)"} ${(d.url ?? "").split("/").pop()}`;
        break;
      }
      if (e.name === "EventDispatch" && d?.type !== undefined) {
        label = `EventDispatch ${d.type}`;
        break;
      }
      if (label === "(no child)") label = e.name;
    }
    const k = byKind.get(label) ?? { ms: 0, n: 0 };
    k.ms += t.dur! / 1000;
    k.n++;
    byKind.set(label, k);
  }
  console.log("whole tasks by what they ran (ms/s, tasks/s):");
  for (const [k, v] of [...byKind.entries()].sort((x, y) => y[1].ms - x[1].ms).slice(0, 30))
    console.log(`  ${(v.ms / SECONDS).toFixed(3).padStart(8)} ms/s ${(v.n / SECONDS).toFixed(1).padStart(6)}/s  ${k}`);
}
