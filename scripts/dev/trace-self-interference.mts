// Confirms (or refutes) issue 12's hypothesis before the fix: does the page's
// report (POST /api/samples) overlap its probes to the same server? Wraps
// fetch and XHR in the page to log each request's start and end, runs the
// probe page against A and B for N seconds, and compares the XHR probes sent
// while a report to their server was in flight with the others. Also takes a
// CDP CPU profile of the page's main thread and prints where its time goes.
// Run: npm run build && npx tsx scripts/dev/trace-self-interference.mts [seconds, default 40]
import { launchBrowser } from "../../testkit/browser.js";
import { startServerProcess, waitForPeerName } from "../../testkit/server-process.js";

const SECONDS = Number(process.argv[2] ?? 40);

interface Req {
  kind: "xhr" | "fetch";
  url: string;
  startMs: number;
  endMs: number;
}

const b = await startServerProcess(["--name", "B", "--no-ping"]);
const a = await startServerProcess(["--name", "A", "--no-ping", "--peer", b.url]);
const browser = await launchBrowser();
try {
  await waitForPeerName(a, "B");
  const page = await browser.context.newPage();
  await page.addInitScript(() => {
    const log: { kind: string; url: string; startMs: number; endMs: number }[] = [];
    (window as unknown as { __reqs: typeof log }).__reqs = log;
    const origFetch = window.fetch.bind(window);
    window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const e = {
        kind: "fetch",
        url: String(input instanceof Request ? input.url : input),
        startMs: performance.now(),
        endMs: NaN,
      };
      log.push(e);
      const p = origFetch(input, init);
      void p
        .then((r) => r.clone().arrayBuffer())
        .finally(() => (e.endMs = performance.now()))
        .catch(() => undefined);
      return p;
    };
    const open = XMLHttpRequest.prototype.open;
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.open = function (
      this: XMLHttpRequest & { __u?: string },
      m: string,
      u: string | URL,
      ...rest: unknown[]
    ) {
      this.__u = String(u);
      return (open as (...a: unknown[]) => void).call(this, m, u, ...rest);
    } as typeof open;
    XMLHttpRequest.prototype.send = function (
      this: XMLHttpRequest & { __u?: string },
      body?: Document | XMLHttpRequestBodyInit | null,
    ) {
      const e = { kind: "xhr", url: this.__u ?? "", startMs: performance.now(), endMs: NaN };
      log.push(e);
      this.addEventListener("loadend", () => (e.endMs = performance.now()));
      return send.call(this, body);
    };
  });
  await page.goto(`${a.url}/`);
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Performance.enable");
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await page.waitForTimeout(5000);
  const m0 = (await cdp.send("Performance.getMetrics")).metrics;
  await cdp.send("Profiler.start");
  await page.waitForTimeout(SECONDS * 1000);
  const { profile } = await cdp.send("Profiler.stop");
  const m1 = (await cdp.send("Performance.getMetrics")).metrics;
  const metric = (ms: typeof m0, name: string) => ms.find((x) => x.name === name)?.value ?? NaN;
  const wallS = metric(m1, "Timestamp") - metric(m0, "Timestamp");
  const taskS = metric(m1, "TaskDuration") - metric(m0, "TaskDuration");
  console.log(`main thread: ${((100 * taskS) / wallS).toFixed(2)} % of a core over ${wallS.toFixed(1)} s`);

  const reqs = (await page.evaluate(() => (window as unknown as { __reqs: Req[] }).__reqs)) as Req[];
  const originA = new URL(a.url).origin;
  const originB = new URL(b.url).origin;
  const reports = reqs.filter((r) => r.url.includes("/api/samples"));
  for (const [name, origin] of [
    ["A", originA],
    ["B", originB],
  ] as const) {
    const probes = reqs.filter(
      (r) => r.kind === "xhr" && r.url.startsWith(origin) && r.url.includes("/echo") && Number.isFinite(r.endMs),
    );
    // A report whose lifetime intersects the probe's: its request and the server's work on it share the probe's moment.
    const overlapped = (p: Req) =>
      reports.some(
        (r) =>
          new URL(r.url, a.url).origin === origin &&
          r.startMs < p.endMs &&
          (Number.isNaN(r.endMs) || r.endMs > p.startMs),
      );
    const med = (xs: number[]) => (xs.length === 0 ? NaN : [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!);
    const withR = probes.filter(overlapped).map((p) => p.endMs - p.startMs);
    const without = probes.filter((p) => !overlapped(p)).map((p) => p.endMs - p.startMs);
    console.log(
      `XHR ${name}: ${probes.length} probes; ${withR.length} overlapped by a report to ${name} (median ${med(withR).toFixed(2)} ms), ${without.length} not (median ${med(without).toFixed(2)} ms)`,
    );
  }
  // Where each report starts relative to the nearest XHR probe sent before it (ms).
  const lags = reports.map((r) => {
    const before = reqs.filter((p) => p.kind === "xhr" && p.url.includes("/echo") && p.startMs <= r.startMs);
    const p = before[before.length - 1];
    return p === undefined ? NaN : r.startMs - p.startMs;
  });
  console.log(
    `reports: ${reports.length}; start after the last XHR probe's send (ms): ${lags.map((x) => x.toFixed(1)).join(" ")}`,
  );
  console.log(`report durations (ms): ${reports.map((r) => (r.endMs - r.startMs).toFixed(1)).join(" ")}`);

  // Where the main thread's time goes: self time per function, top 15.
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => {
    const n = byId.get(id)!;
    const key = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((x, y) => x + y, 0);
  console.log(`profile: ${total.toFixed(0)} ms sampled; top self time:`);
  for (const [k, v] of [...self.entries()]
    .filter(([k]) => !k.startsWith("(idle)"))
    .sort((x, y) => y[1] - x[1])
    .slice(0, 15))
    console.log(`  ${v.toFixed(1).padStart(8)} ms  ${k}`);
} finally {
  await browser.close();
  await a.stop();
  await b.stop();
}
