// How long the histogram page takes to show everything over a month of
// samples (10 M in the full run): real server, real Chromium, time from
// navigation to the first finished refresh (table + every chart) on range
// "all", then from setting a focus window to its finished refresh. Baseline
// in the same run: the page's endpoint requests alone, fetched and parsed,
// nothing drawn.
// Run after npm run build: npm run bench -- histogram-page  (or: npx tsx bench/histogram-page.ts [smoke|full])
import { launchBrowser } from "../testkit/browser.js";
import { startServerProcess } from "../testkit/server-process.js";
import { summarize } from "../shared/stats.js";
import { monthOfSamples } from "./month-of-samples.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { samples: 20_000, runs: 1 }, full: { samples: 10_000_000, runs: 3 } } as const;
const FIRST_RENDER_MS_MAX = 1500;

type Probe = { idle: boolean; completed: number; generation: number };

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { samples, runs } = SIZES[size];
  const month = monthOfSamples(samples);
  const server = await startServerProcess(
    ["--name", "A", "--no-ping", "--no-rate-limit", "--raw-days", "36500", "--rollup-days", "36500"],
    { dbPath: month.dbPath },
  );
  const browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
  const load: number[] = [];
  const focus: number[] = [];
  const api: number[] = [];
  try {
    for (let r = 0; r < runs + 1; r++) {
      const page = await browser.context.newPage();
      const t0 = performance.now();
      await page.goto(`${server.url}/histogram?range=all`);
      await page.waitForFunction(
        () => {
          const t = (window as unknown as { tailprobeHistogram?: Probe }).tailprobeHistogram;
          return t?.idle && t.completed > 0;
        },
        undefined,
        { timeout: 120_000 },
      );
      const loadMs = performance.now() - t0;
      // A focus change recomputes the summary; measured inside the page.
      const focusMs = await page.evaluate(
        async (w) => {
          const t = (window as unknown as { tailprobeHistogram: Probe }).tailprobeHistogram;
          const before = t.generation;
          const s = performance.now();
          history.replaceState(null, "", `${location.search}&focus=${w.from}-${w.to}`);
          window.dispatchEvent(new PopStateEvent("popstate"));
          while (!(t.idle && t.completed > before)) await new Promise((r) => setTimeout(r, 5));
          return performance.now() - s;
        },
        { from: month.startMs + 10 * 86_400_000 + 12_345, to: month.startMs + 20 * 86_400_000 },
      );
      // The same five requests fetched and parsed as JSON, nothing drawn.
      const apiMs = await page.evaluate(async (q) => {
        const s = performance.now();
        await Promise.all(
          ["stats", "histogram", "cdf", "timeseries", "heatmap"].map(async (e) =>
            (await fetch(`/api/${e}?${q}`)).json(),
          ),
        );
        return performance.now() - s;
      }, `from=0&to=${Date.now()}`);
      await page.close();
      if (r === 0) continue; // the first visit warms the page cache and the server's JIT
      load.push(loadMs);
      focus.push(focusMs);
      api.push(apiMs);
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  const med = (xs: number[]) => summarize(xs).p50!;
  console.log(
    `histogram page over ${month.n} samples: first render ${med(load).toFixed(0)} ms, focus ${med(focus).toFixed(0)} ms, endpoints alone ${med(api).toFixed(0)} ms`,
  );
  return [
    {
      figure: `first render, range all (ms)`,
      value: med(load),
      baseline: med(api),
      goal: `≤ ${FIRST_RENDER_MS_MAX} ms`,
      pass: size === "smoke" ? null : med(load) <= FIRST_RENDER_MS_MAX,
    },
    {
      figure: `focus-window recompute (ms)`,
      value: med(focus),
      baseline: med(api),
      goal: "(reported)",
      pass: null,
    },
  ];
}

export const bench: Benchmark = {
  name: "histogram-page",
  about:
    "Chromium opening the histogram page on the 10 M month (range all) to its finished first refresh, beside its requests alone; and a focus change.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
