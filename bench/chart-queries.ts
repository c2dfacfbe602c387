// Queries that do not grow with the data: with a month of samples stored
// (10 M in the full run: 30 days, two servers, every method and baseline,
// four clients), times every query endpoint over HTTP the way the histogram
// page asks, beside a baseline measured in the same run: the raw
// scan-and-sort every answer needed before rollups (read every sample of the
// range, sort each series' latencies). Also prints the bytes per sample on disk.
// Run: npm run bench -- chart-queries  (or: npx tsx bench/chart-queries.ts [smoke|full])
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { bytesWithWal, monthOfSamples, SAMPLES_PER_TICK, serveMonth, TABS } from "./month-of-samples.js";
import { publicIdOf } from "../testkit/public-id.js";
import { median, type Benchmark, type BenchRow, type BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";
import { decodeBlock } from "../server/store/sqlite/raw-block.js";
import type { StoredBlock } from "../server/store/sqlite/raw-reads.js";

const SIZES = { smoke: { samples: 20_000, repeats: 1 }, full: { samples: 10_000_000, repeats: 3 } } as const;
const STATS_MS_MAX = 100;
const CHART_MS_MAX = 200;
const SPEEDUP_MIN = 20;
const BYTES_PER_SAMPLE_MAX = 40;

/** The raw path's floor: every sample of the range read and each series' latencies sorted (ms). */
function rawScanAndSort(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    const t0 = performance.now();
    const bySeries = new Map<number, number[]>();
    for (const [startMs, session, seq0, data] of db
      .prepare("SELECT start_ms, session, seq0, data FROM raw_blocks")
      .raw(true)
      .iterate() as IterableIterator<StoredBlock>)
      for (const [, , , series, status, us] of decodeBlock({ startMs, session, seq0 }, data)) {
        if (status! % 8 !== 0 || us === null) continue;
        let list = bySeries.get(series!);
        if (list === undefined) bySeries.set(series!, (list = []));
        list.push(us!);
      }
    for (const list of bySeries.values()) Float64Array.from(list).sort();
    return performance.now() - t0;
  } finally {
    db.close();
  }
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { samples, repeats } = SIZES[size];
  const month = monthOfSamples(samples);
  const bytes = bytesWithWal(month.dbPath);
  const server = await serveMonth(month);
  const week = `from=${month.endMs - 7 * 86_400_000}`;
  const QUERIES: [string, string, number][] = [
    ["/api/stats, range all", "/api/stats", STATS_MS_MAX],
    [
      "/api/stats, last 7 days, one client, xhr+ws on A, visible only",
      `/api/stats?${week}&client=${publicIdOf(month.dbPath, "bench_laptop")}&method=xhr,ws&target=A&visible=1`,
      STATS_MS_MAX,
    ],
    ["/api/stats, range all, ticks ≤ 50 ms late", "/api/stats?maxLateMs=50", STATS_MS_MAX],
    ["/api/histogram, range all", "/api/histogram", CHART_MS_MAX],
    ["/api/cdf, range all", "/api/cdf", CHART_MS_MAX],
    ["/api/timeseries, range all", "/api/timeseries", CHART_MS_MAX],
    ["/api/heatmap, range all, ws on A", "/api/heatmap?method=ws&target=A", CHART_MS_MAX],
    ["/api/races, range all", "/api/races", CHART_MS_MAX],
  ];
  const times = new Map<string, number[]>();
  let baselineMs: number;
  try {
    for (const [, url] of QUERIES) await (await fetch(server.url + url)).text(); // warm-up: page cache, JIT
    for (let r = 0; r < repeats; r++)
      for (const [label, url] of QUERIES) {
        const t0 = performance.now();
        const res = await fetch(server.url + url);
        const body = await res.text();
        if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${body.slice(0, 200)}`);
        times.set(label, [...(times.get(label) ?? []), performance.now() - t0]);
      }
    baselineMs = median(Array.from({ length: Math.min(repeats, 2) }, () => rawScanAndSort(month.dbPath)));
  } finally {
    await server.close();
  }
  const judge = (ok: boolean) => (size === "smoke" ? null : ok);
  const rows: BenchRow[] = QUERIES.map(([label, , maxMs]) => {
    const ms = median(times.get(label)!);
    return {
      figure: `${label} (ms)`,
      value: ms,
      baseline: baselineMs,
      goal: `≤ ${maxMs} ms, ≥ ${SPEEDUP_MIN}× faster than the raw scan`,
      pass: judge(ms <= maxMs && baselineMs / ms >= SPEEDUP_MIN),
    };
  });
  const tickS = (month.endMs - month.startMs) / 1000 / (month.n / TABS / SAMPLES_PER_TICK);
  rows.push({
    figure: `disk a sample, a tick per ${tickS.toFixed(1)} s per client, database + WAL + rollups (bytes)`,
    value: bytes / month.n,
    baseline: null,
    goal: `≤ ${BYTES_PER_SAMPLE_MAX} bytes`,
    pass: judge(bytes / month.n <= BYTES_PER_SAMPLE_MAX),
  });
  if (month.writeSeconds > 0)
    rows.push({
      figure: "generating the month: samples written in bulk (samples/s)",
      value: month.n / month.writeSeconds,
      baseline: null,
      goal: "(reported)",
      pass: null,
    });
  return rows;
}

export const bench: Benchmark = {
  name: "chart-queries",
  about:
    "Each query endpoint over HTTP on a 10 M-sample month (30 days, 4 clients, 2 servers), beside the raw scan-and-sort it replaced; and the month's disk.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
