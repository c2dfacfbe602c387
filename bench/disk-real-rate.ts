// Disk per sample at the rate a real tab stores: four tabs (month-of-samples'
// clients), each 13 samples a second (every method and baseline of two
// servers, once a second) for a day, written through the store's writer. The
// 10 M month of chart-queries spreads its samples over 30 days (one tick per
// 13.5 s per client), so each 5-minute rollup row there holds ~8 samples and
// the rollups weigh several times what they weigh beside a running tab; this
// is the figure a user who leaves the page open meets. Prints bytes per
// sample (database + WAL) and how the raw table and the rollups share them
// (SQLite's dbstat).
// Run: npm run bench -- disk-real-rate  (or: npx tsx bench/disk-real-rate.ts [smoke|full])
import fs from "node:fs";
import Database from "better-sqlite3";
import { monthOfSamples } from "./month-of-samples.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const BYTES_PER_SAMPLE_MAX = 40;
const TABS = 4;
const SAMPLES_PER_TICK = 13;
/** Smoke: an hour; full: a day. */
const SIZES = { smoke: { days: 1 / 24 }, full: { days: 1 } } as const;

const sizeOf = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

/** Bytes of the pages of each table (its indexes with it), from dbstat. */
function bytesByTable(dbPath: string): Map<string, number> {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as { name: string; bytes: number }[];
    return new Map(rows.map((r) => [r.name, r.bytes]));
  } finally {
    db.close();
  }
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { days } = SIZES[size];
  const judge = (ok: boolean) => (size === "smoke" ? null : ok);
  const n = Math.round(TABS * SAMPLES_PER_TICK * 86_400 * days);
  const day = monthOfSamples(n, days);
  const bytes = sizeOf(day.dbPath) + sizeOf(`${day.dbPath}-wal`);
  const tables = bytesByTable(day.dbPath);
  const perSample = (name: string) => (tables.get(name) ?? 0) / day.n;
  console.log(
    `${day.n} samples over ${days * 24} h: ${(bytes / day.n).toFixed(2)} bytes a sample (raw table ${perSample("raw_samples").toFixed(2)}, rollups ${perSample("rollups").toFixed(2)})`,
  );
  return [
    {
      figure: `disk per sample at a real tab's rate (${TABS} tabs, 13 samples/s each, ${days * 24} h), database + WAL, rollups included (bytes)`,
      value: bytes / day.n,
      baseline: null,
      goal: `≤ ${BYTES_PER_SAMPLE_MAX} bytes`,
      pass: judge(bytes / day.n <= BYTES_PER_SAMPLE_MAX),
    },
    { figure: "  of which the raw table (bytes a sample)", value: perSample("raw_samples"), baseline: null, goal: "(reported)", pass: null },
    { figure: "  of which the rollups (bytes a sample)", value: perSample("rollups"), baseline: null, goal: "(reported)", pass: null },
  ];
}

export const bench: Benchmark = { name: "disk-real-rate", run };
if (isMain(import.meta.url)) await runAlone(bench);
