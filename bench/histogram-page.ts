// How long the histogram page takes to show everything, and to recompute
// after a focus change, as the data grows. Real server, real Chromium:
// time from navigation to the first finished refresh (table + every chart),
// then from setting a focus window (URL change) to its finished refresh.
// Baseline in the same run: the raw time of the endpoint requests alone,
// so the ratio is the page's own cost (parsing, drawing) on top of the API.
// Run after npm run build: npm run bench -- histogram-page  (or: npx tsx bench/histogram-page.ts [smoke|full])
import { launchBrowser } from "../tests/helpers/browser.js";
import { startServerProcess } from "../tests/helpers/server-process.js";
import { ingest, syntheticSamples } from "../tests/helpers/synthetic-latency.js";
import { summarize } from "../shared/stats.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { minutes: [1], runs: 1 }, full: { minutes: [10, 60, 240], runs: 3 } } as const;

type Probe = { idle: boolean; completed: number; generation: number };

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { minutes: MINUTES, runs: RUNS } = SIZES[size];
  const rows: BenchRow[] = [];
  for (const minutes of MINUTES) {
    const server = await startServerProcess(["--name", "A", "--no-ping", "--no-rate-limit", "--peer", "B=http://127.0.0.1:9"]);
    const browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
    try {
      const seconds = minutes * 60;
      const startMs = Math.floor((Date.now() - (seconds + 10) * 1000) / 1000) * 1000;
      const samples = syntheticSamples({ startMs, seconds, spike: { fromMs: startMs + seconds * 500, toMs: startMs + seconds * 500 + 30_000 } });
      await ingest(server.url, samples);
      const range = `range=custom&from=${startMs}&to=${startMs + seconds * 1000}`;
      const load: number[] = [];
      const focus: number[] = [];
      const api: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const page = await browser.context.newPage();
        const t0 = performance.now();
        await page.goto(`${server.url}/histogram?${range}`);
        await page.waitForFunction(() => {
          const t = (window as unknown as { tailprobeHistogram?: Probe }).tailprobeHistogram;
          return t !== undefined && t.idle && t.completed > 0;
        }, undefined, { timeout: 120_000 });
        load.push(performance.now() - t0);
        // A focus change recomputes the summary; measured inside the page.
        focus.push(
          await page.evaluate(async (w) => {
            const t = (window as unknown as { tailprobeHistogram: Probe }).tailprobeHistogram;
            const before = t.generation;
            const s = performance.now();
            history.replaceState(null, "", `${location.search}&focus=${w.from}-${w.to}`);
            window.dispatchEvent(new PopStateEvent("popstate"));
            while (!(t.idle && t.completed > before)) await new Promise((r) => setTimeout(r, 5));
            return performance.now() - s;
          }, { from: startMs + seconds * 400, to: startMs + seconds * 600 }),
        );
        // The same five requests fetched and parsed as JSON, nothing drawn.
        api.push(
          await page.evaluate(async (q) => {
            const s = performance.now();
            await Promise.all(
              ["stats", "histogram", "cdf", "timeseries", "heatmap"].map(async (e) => (await fetch(`/api/${e}?${q}`)).json()),
            );
            return performance.now() - s;
          }, `from=${startMs}&to=${startMs + seconds * 1000}`),
        );
        await page.close();
      }
      const med = (xs: number[]) => summarize(xs).p50!;
      console.log(
        `${minutes} min, ${samples.length} samples: first full render ${med(load).toFixed(0)} ms, ` +
          `focus recompute ${med(focus).toFixed(0)} ms, endpoints alone ${med(api).toFixed(0)} ms ` +
          `(page/endpoints ${(med(load) / med(api)).toFixed(2)}×), median of ${RUNS}`,
      );
      rows.push({ figure: `histogram page first render, ${minutes} min of samples (ms)`, value: med(load), baseline: med(api), goal: "(reported)", pass: null });
    } finally {
      await browser.close();
      await server.stop();
    }
  }
  return rows;
}

export const bench: Benchmark = { name: "histogram-page", run };
if (isMain(import.meta.url)) await runAlone(bench);
