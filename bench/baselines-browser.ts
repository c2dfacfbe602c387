// The seed's table for a real browser on loopback: Chromium probes servers A
// and B (separate processes) while each measures its baselines towards it.
// Prints every (method, server) row of A's /api/stats for the run.
// Run: npm run build && npm run bench -- baselines-browser  (or: npx tsx bench/baselines-browser.ts [smoke|full])
import type { StatsResponse } from "../shared/contract/index.js";
import { launchBrowser } from "../testkit/browser.js";
import { startServerProcess, waitForPeerName } from "../testkit/server-process.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { seconds: 4 }, full: { seconds: 20 } } as const;
/** Time for the last samples to be reported home after probing stops (ms). */
const REPORT_GRACE_MS = 4000;

async function run(size: BenchSize): Promise<BenchRow[]> {
  const SECONDS = SIZES[size].seconds;
  const rows: BenchRow[] = [];
  const b = await startServerProcess(["--name", "B"]);
  const a = await startServerProcess(["--name", "A", "--peer", b.url]);
  const browser = await launchBrowser();
  try {
    await waitForPeerName(a, "B");
    const page = await browser.context.newPage();
    const startMs = Date.now();
    await page.goto(`${a.url}/`);
    await page.waitForTimeout(SECONDS * 1000 + REPORT_GRACE_MS);
    const stats = (await (await fetch(`${a.url}/api/stats?from=${startMs}`)).json()) as StatsResponse;
    const f = (v: number | null) => (v === null ? "–" : v.toFixed(3)).padStart(8);
    console.log(`${SECONDS} s in Chromium, loopback (ms)`);
    console.log("method     server   n fail      min      p50      p90      p99      max");
    for (const r of stats.rows) {
      console.log(
        `${r.method.padEnd(10)} ${r.target.padEnd(5)}${String(r.count).padStart(4)} ${String(r.failures).padStart(4)} ${f(r.min)} ${f(r.p50)} ${f(r.p90)} ${f(r.p99)} ${f(r.max)}`,
      );
      // Beside its server's ping: what the browser adds over the network path.
      const ping = stats.rows.find((x) => x.method === "ping" && x.target === r.target);
      if (r.p50 !== null)
        rows.push({
          figure: `${r.method} → ${r.target} p50 (ms)`,
          value: r.p50,
          baseline: ping?.p50 ?? null,
          goal: "(reported)",
          pass: null,
        });
    }
  } finally {
    await browser.close();
    await a.stop();
    await b.stop();
  }
  return rows;
}

export const bench: Benchmark = {
  name: "baselines-browser",
  about: "The seed's table in Chromium on loopback: each method's median to A and B beside each server's ping.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
