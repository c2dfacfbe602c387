// Disk per sample at the rate a real tab stores: four tabs (month-of-samples'
// clients and samples), each 13 samples a second (every method and baseline
// of two servers, once a second) for a day, written the way tabs write:
// each tab's last 5 s as one batch through the writer thread's batchWriter,
// in time order. A minute of reports (48 batches) goes in one group commit:
// the order of the inserts, which sets how full the pages end up, is that of
// a commit per batch, and so are the rows (a commit per batch, measured
// once: 40.33 bytes a sample in 966 s; each commit rewrites the day's and
// the running totals' rollup rows). The
// 10 M month of chart-queries spreads its samples over 30 days (one tick per
// 13.5 s per client), so each 5-minute rollup row there holds ~8 samples and
// the rollups weigh several times what they weigh beside a running tab; this
// is the figure a user who leaves the page open meets. Prints bytes per
// sample (database + WAL) and how the raw table and the rollups share them
// (SQLite's dbstat).
// Run: npm run bench -- disk-real-rate  (or: npx tsx bench/disk-real-rate.ts [smoke|full])
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { openStore } from "../server/store/sqlite/store.js";
import { batchWriter, type GroupItem } from "../server/store/sqlite/writer.js";
import { Codes } from "../server/store/sqlite/codes.js";
import { tempDir } from "../testkit/server-process.js";
import { bytesWithWal, DAY_MS, SAMPLES_PER_TICK, sampleBatches, TABS } from "./month-of-samples.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const BYTES_PER_SAMPLE_MAX = 40;
/** A tab reports its last 5 s (client/src/report/outbox.ts FLUSH_INTERVAL_MS). */
const TICKS_PER_REPORT = 5;
/** Smoke: an hour; full: a day. */
const SIZES = { smoke: { days: 1 / 24 }, full: { days: 1 } } as const;
/** Batches a group commit: a minute of the four tabs' reports. */
const BATCHES_A_COMMIT = 48;

/** The tabs' reports, a minute of them a commit, into a new database; its path and the samples written. */
function writeAsTabsDo(n: number, days: number): { dbPath: string; written: number; seconds: number } {
  const dbPath = path.join(tempDir("tailprobe-bench-"), "real-rate.db");
  // Retention off: the data is in the past by design.
  const store = openStore(dbPath, { rawDays: 36_500, rollupDays: 36_500 });
  const write = batchWriter(store.db, new Codes(store.db));
  const endMs = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  let written = 0;
  const t0 = performance.now();
  try {
    let group: GroupItem[] = [];
    const commit = () => {
      for (const result of write(group)) {
        if (result instanceof Error) throw result;
        written += result.accepted;
      }
      group = [];
    };
    for (const batch of sampleBatches(n, days, endMs, TICKS_PER_REPORT)) {
      group.push({ batch, meta: { userAgent: "bench", receivedAtMs: batch.samples[0]!.t } });
      if (group.length === BATCHES_A_COMMIT) commit();
    }
    if (group.length > 0) commit();
  } finally {
    store.db.pragma("wal_checkpoint(TRUNCATE)");
    void store.close();
  }
  return { dbPath, written, seconds: (performance.now() - t0) / 1000 };
}

/** Bytes of the pages of each table or index, from dbstat (raw_blocks and rollups have no index of their own). */
function bytesByTable(dbPath: string): Map<string, number> {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
      name: string;
      bytes: number;
    }[];
    return new Map(rows.map((r) => [r.name, r.bytes]));
  } finally {
    db.close();
  }
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { days } = SIZES[size];
  const judge = (ok: boolean) => (size === "smoke" ? null : ok);
  const n = Math.round(TABS * SAMPLES_PER_TICK * 86_400 * days);
  const day = writeAsTabsDo(n, days);
  const bytes = bytesWithWal(day.dbPath);
  const tables = bytesByTable(day.dbPath);
  fs.rmSync(path.dirname(day.dbPath), { recursive: true, force: true });
  const perSample = (name: string) => (tables.get(name) ?? 0) / day.written;
  console.log(
    `${day.written} samples over ${days * 24} h in ${day.seconds.toFixed(1)} s: ${(bytes / day.written).toFixed(2)} bytes a sample (raw table ${perSample("raw_blocks").toFixed(2)}, rollups ${perSample("rollups").toFixed(2)})`,
  );
  return [
    {
      figure: `disk a sample, ${TABS} tabs × ${SAMPLES_PER_TICK} samples/s for ${days * 24} h, database + WAL + rollups (bytes)`,
      value: bytes / day.written,
      baseline: null,
      goal: `≤ ${BYTES_PER_SAMPLE_MAX} bytes`,
      pass: judge(bytes / day.written <= BYTES_PER_SAMPLE_MAX),
    },
    {
      figure: "  of which the raw table (bytes a sample)",
      value: perSample("raw_blocks"),
      baseline: null,
      goal: "(reported)",
      pass: null,
    },
    {
      figure: "  of which the rollups (bytes a sample)",
      value: perSample("rollups"),
      baseline: null,
      goal: "(reported)",
      pass: null,
    },
  ];
}

export const bench: Benchmark = {
  name: "disk-real-rate",
  about:
    "Disk for four tabs at a real tab's rate for a day, written as tabs write (a batch per 5 s, a group commit per minute).",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
