// GET /api/changes over a month of samples (bench/month-of-samples.ts: 10 M
// in the full run, 30 days, four clients, two servers, every method and
// baseline, an evening busy hour that shifts every probe each day), timed over
// HTTP beside GET /api/timeseries over the same range in the same run. The
// first request after a start reads every hour of every series and client
// (cold); the figure with the goal is the steady one, a page's refresh, which
// reads only the newest hours (the hour cells, 5-minute cells and settled
// changes are kept between requests: docs/changes.md).
// Run: npm run bench -- changes-query  (or: npx tsx bench/changes-query.ts [smoke|full])
import { performance } from "node:perf_hooks";
import { startServer } from "../server/app.js";
import { parseServeArgs } from "../server/cli/options.js";
import { monthOfSamples } from "./month-of-samples.js";
import { median, type Benchmark, type BenchRow, type BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { samples: 20_000, repeats: 1 }, full: { samples: 10_000_000, repeats: 5 } } as const;
const CHANGES_MS_MAX = 200;

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { samples, repeats } = SIZES[size];
  const month = monthOfSamples(samples);
  const parsed = parseServeArgs([
    "--port",
    "0",
    "--db",
    month.dbPath,
    "--no-ping",
    "--no-rate-limit",
    "--raw-days",
    "36500",
    "--rollup-days",
    "36500",
  ]);
  if (!parsed.ok || parsed.value === "help") throw new Error("bad flags");
  const server = await startServer(parsed.value, { log: () => {} });
  const range = `from=${month.startMs}&to=${month.endMs}`;
  const time = async (path: string): Promise<{ ms: number; body: string }> => {
    const t0 = performance.now();
    const res = await fetch(server.url + path);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${body.slice(0, 200)}`);
    return { ms: performance.now() - t0, body };
  };
  let coldMs: number;
  let found: number;
  const steady: number[] = [];
  const timeseries: number[] = [];
  try {
    const cold = await time(`/api/changes?${range}`);
    coldMs = cold.ms;
    found = (JSON.parse(cold.body) as { changes: unknown[] }).changes.length;
    await time(`/api/timeseries?${range}`); // warm-up: page cache, JIT
    for (let r = 0; r < repeats; r++) {
      steady.push((await time(`/api/changes?${range}`)).ms);
      timeseries.push((await time(`/api/timeseries?${range}`)).ms);
    }
  } finally {
    await server.close();
  }
  const judge = (ok: boolean) => (size === "smoke" ? null : ok);
  const ms = median(steady);
  return [
    {
      figure: `/api/changes, 30 days, ${month.n} samples, steady (a refresh; ${found} changes) (ms)`,
      value: ms,
      baseline: median(timeseries),
      goal: `≤ ${CHANGES_MS_MAX} ms (baseline: /api/timeseries over the same range)`,
      pass: judge(ms <= CHANGES_MS_MAX),
    },
    {
      figure: `/api/changes, 30 days, ${month.n} samples, first request after a start (every hour of every client read) (ms)`,
      value: coldMs,
      baseline: median(timeseries),
      goal: "(reported)",
      pass: null,
    },
  ];
}

export const bench: Benchmark = {
  name: "changes-query",
  about:
    "GET /api/changes over a 10 M-sample month (30 days, 4 clients, 2 servers), a page's refresh and the first request after a start, beside GET /api/timeseries over the same range.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
