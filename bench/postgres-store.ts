// The PostgreSQL store beside SQLite on the same data: ingest rate through
// the Store (batches of 500, a few concurrent, each settled after its
// commit, rollups merged in the transaction on both) and the time of every
// query endpoint over the loaded day. Baseline: SQLite in the same run.
// PostgreSQL is a throwaway cluster (testkit/postgres.ts, fsync off on both
// sides' terms: SQLite runs synchronous=NORMAL); without Debian's binaries
// the benchmark says what to install and reports nothing.
// Run: npm run bench -- postgres-store  (or: npx tsx bench/postgres-store.ts [smoke|full])
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openPostgresStore } from "../server/store/postgres/store.js";
import { openStoreThreaded } from "../server/store/sqlite/store.js";
import { type StoreWithQueries, withQueries } from "../server/query/with-queries.js";
import type { Store } from "../server/store/store.js";
import type { SampleFilter } from "../server/store/sample-filter.js";
import { postgresBinDir, POSTGRES_MISSING, startPostgres } from "../testkit/postgres.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { DAY_MS, syntheticBatches } from "./synthetic-samples.js";
import { isMain, runAlone } from "./table.js";
import { tempDir } from "../testkit/server-process.js";

const SIZES = { smoke: { samples: 4_000, repeats: 1 }, full: { samples: 200_000, repeats: 5 } } as const;
const BATCH_SAMPLES = 500;
/** Batches in flight at once, as a few pages reporting together. */
const CONCURRENT_BATCHES = 4;

async function ingest(store: Store, n: number, endMs: number): Promise<number> {
  const batches = [...syntheticBatches(n, DAY_MS, endMs, BATCH_SAMPLES)];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT_BATCHES }, async (_, c) => {
      for (let b = next++; b < batches.length; b = next++)
        await store.insertBatch(
          { clientId: "bench_client", sessionId: `bench_session_${c}`, samples: batches[b]! },
          { userAgent: null, receivedAtMs: endMs },
        );
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/** Median time (ms) of each endpoint over the whole day, answered as the server would (auto path). */
async function queryTimes(store: StoreWithQueries, endMs: number, repeats: number): Promise<Map<string, number>> {
  const f: SampleFilter = { fromMs: endMs - DAY_MS, toMs: endMs };
  const queries: [string, () => Promise<unknown>][] = [
    ["/api/stats", () => store.stats(f)],
    ["/api/histogram", () => store.histogram(f, {})],
    ["/api/cdf", () => store.cdf(f)],
    ["/api/timeseries", () => store.timeseries(f, {})],
    ["/api/heatmap", () => store.heatmap(f, {})],
    ["/api/races", () => store.races(f)],
    ["/api/stats, visible only", () => store.stats({ ...f, visibleOnly: true })],
  ];
  const out = new Map<string, number>();
  for (const [name, q] of queries) {
    const times: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      await q();
      times.push(performance.now() - t0);
    }
    out.set(name, times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!);
  }
  return out;
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  if (postgresBinDir() === null) {
    console.log(`postgres-store: ${POSTGRES_MISSING}`);
    return [];
  }
  const { samples, repeats } = SIZES[size];
  const endMs = Date.now();
  const dir = tempDir("tailprobe-bench-");
  const pg = await startPostgres();
  const sqlite = withQueries(await openStoreThreaded(path.join(dir, "bench.db")));
  const postgres = withQueries(await openPostgresStore(await pg.createDatabase("bench")));
  try {
    const sqliteRate = await ingest(sqlite, samples, endMs);
    const pgRate = await ingest(postgres, samples, endMs);
    console.log(
      `postgres-store: ingest ${pgRate.toFixed(0)} samples/s on PostgreSQL, ${sqliteRate.toFixed(0)} on SQLite`,
    );
    const rows: BenchRow[] = [
      {
        figure: `ingest, batches of ${BATCH_SAMPLES}, ${CONCURRENT_BATCHES} at once (samples/s)`,
        value: pgRate,
        baseline: sqliteRate,
        goal: "(reported)",
        pass: null,
      },
    ];
    const sq = await queryTimes(sqlite, endMs, repeats);
    const pq = await queryTimes(postgres, endMs, repeats);
    for (const [name, ms] of pq)
      rows.push({
        figure: `${name} over the day (ms)`,
        value: ms,
        baseline: sq.get(name)!,
        goal: "(reported)",
        pass: null,
      });
    return rows;
  } finally {
    await postgres.close();
    await sqlite.close();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const bench: Benchmark = {
  name: "postgres-store",
  about:
    "A day of 200,000 samples into a throwaway PostgreSQL (fsync off) beside SQLite (the baseline): ingest, and each query endpoint over the day.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
