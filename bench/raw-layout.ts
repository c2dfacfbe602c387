// What the raw table's layout costs and saves: the same rows stored in
// today's layout (schema.ts version 7: blocks of a session's samples per
// 5-minute bucket, raw-block.ts, written by block-writer.ts) and
// into version 2's (tests/fixtures/schema-v2.sql: keyed by (session, seq),
// plus an index on t), alternating, in three arrival patterns: tabs as they
// report (each its last 5 s, 65 samples, every 5 s; a commit per group of
// batches, as the writer thread's group commit does) at 200 and 2,000 tabs,
// and the dense bursts ingest-rate sends (4 sessions, 500 samples 1 ms apart,
// each batch starting 20 ms after the last, so every batch overlaps the
// others' time range). Prints rows/s and bytes per row on disk.
// Run: npm run bench -- raw-layout  (or: npx tsx bench/raw-layout.ts [smoke|full])
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { DDL } from "../server/store/sqlite/schema.js";
import { packRaw, TYPICAL_FLAGS } from "../server/store/sqlite/raw-layout.js";
import { RAW_COLUMNS } from "../server/store/logical-row.js";
import { blockStore } from "../server/store/sqlite/block-writer.js";
import { tempDir } from "../testkit/server-process.js";
import { median, type Benchmark, type BenchRow, type BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const V2_DDL = fs.readFileSync(path.resolve("tests/fixtures/schema-v2.sql"), "utf8");
/** Version 2 kept one column per field, the logical row as rawValues builds it. */
const INSERT_V2 = `INSERT OR IGNORE INTO raw_samples (${RAW_COLUMNS}) VALUES (${RAW_COLUMNS.split(",")
  .map(() => "?")
  .join(", ")})`;
const SIZES = { smoke: { rows: 20_000, rounds: 1 }, full: { rows: 500_000, rounds: 2 } } as const;

type Row = (number | null)[];
/** One commit's rows. */
type Commit = Row[];

/** A visible page's probe as the page sends it: sched is late_us' whole ms, every flag known. */
const row = (session: number, seq: number, t: number, i: number): Row => {
  const lateUs = (i % 7) * 900;
  return [
    session,
    seq,
    t,
    1 + (i % 13),
    0,
    1000 + (seq % 97) * 100,
    Math.trunc(lateUs / 1000),
    lateUs,
    0,
    TYPICAL_FLAGS,
    null,
    null,
    null,
    null,
    null,
    120,
    250,
  ];
};

/** `tabs` tabs, each reporting its last 5 s every 5 s at its own phase; `group` batches a commit. */
function* tabs(total: number, tabCount: number, group: number): Generator<Commit> {
  const seqs = new Array<number>(tabCount).fill(0);
  const T0 = 1_790_000_000_000;
  let n = 0;
  for (let cycle = 0; n < total; cycle++)
    for (let g = 0; g < tabCount && n < total; g += group) {
      const end = T0 + 5000 * cycle + (g / tabCount) * 5000;
      const commit: Commit = [];
      for (let c = g; c < Math.min(tabCount, g + group); c++)
        for (let i = 0; i < 65; i++) commit.push(row(c + 1, seqs[c]!++, end - 5000 + i * 77 + ((c * 13) % 77), i));
      n += commit.length;
      yield commit;
    }
}

/** ingest-rate's load: 4 sessions, batches of 500 samples 1 ms apart, each round's batches starting 20 ms after the last's. */
function* bursts(total: number): Generator<Commit> {
  let t = 1_790_000_000_000;
  for (let k = 0, n = 0; n < total; k++, t += 20)
    for (let c = 0; c < 4 && n < total; c++) {
      const commit = Array.from({ length: 500 }, (_, i) => row(c + 1, k * 500 + i, t + i, i));
      n += commit.length;
      yield commit;
    }
}

/** Inserts every commit into a fresh file of the layout; rows/s and bytes per row after a checkpoint. */
function insertAll(
  layout: "current" | "v2",
  commits: () => Generator<Commit>,
): { rowsPerS: number; bytesPerRow: number } {
  const dir = tempDir("tailprobe-bench-");
  const file = path.join(dir, `${layout}.db`);
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(layout === "current" ? DDL : V2_DDL);
    const insert = layout === "v2" ? db.prepare(INSERT_V2) : null;
    const storeBlocks = layout === "current" ? blockStore(db) : null;
    const maxSeq = new Map<number, number>();
    const write = db.transaction((commit: Commit) => {
      if (insert !== null) {
        for (const r of commit) insert.run(r);
        return;
      }
      // A commit holds batches of several sessions: each session's rows are one write, as the writer stores them.
      const bySession = new Map<number, Row[]>();
      for (const r of commit) {
        const mine = bySession.get(r[0]!);
        if (mine === undefined) bySession.set(r[0]!, [r]);
        else mine.push(r);
      }
      for (const [session, rows] of bySession) {
        storeBlocks!(
          session,
          maxSeq.get(session) ?? null,
          rows.map((r) => ({ row: packRaw(r, "xhr"), extra: null })),
        );
        maxSeq.set(session, Math.max(maxSeq.get(session) ?? -1, ...rows.map((r) => r[1]!)));
      }
    });
    let n = 0;
    const t0 = performance.now();
    for (const commit of commits()) {
      write(commit);
      n += commit.length;
    }
    const seconds = (performance.now() - t0) / 1000;
    db.pragma("wal_checkpoint(TRUNCATE)");
    const bytes = (db.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name LIKE 'raw_%'").get() as { b: number }).b;
    return { rowsPerS: n / seconds, bytesPerRow: bytes / n };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { rows, rounds } = SIZES[size];
  const patterns: [string, () => Generator<Commit>][] = [
    ["200 tabs, 10 batches a commit", () => tabs(rows, 200, 10)],
    ["2,000 tabs, 50 batches a commit", () => tabs(rows, 2000, 50)],
    ["ingest-rate's overlapping bursts", () => bursts(rows)],
  ];
  const out: BenchRow[] = [];
  for (const [label, commits] of patterns) {
    const got = { current: [] as number[], v2: [] as number[] };
    let bytes = { current: 0, v2: 0 };
    for (let r = 0; r < rounds; r++)
      for (const layout of ["v2", "current"] as const) {
        const m = insertAll(layout, commits);
        got[layout].push(m.rowsPerS);
        bytes = { ...bytes, [layout]: m.bytesPerRow };
      }
    console.log(
      `${label}: ${median(got.current).toFixed(0)} rows/s (version 2's layout ${median(got.v2).toFixed(0)}), ${bytes.current.toFixed(1)} bytes a row (${bytes.v2.toFixed(1)})`,
    );
    out.push(
      {
        figure: `${label}: rows stored (rows/s)`,
        value: median(got.current),
        baseline: median(got.v2),
        goal: "(reported)",
        pass: null,
      },
      {
        figure: `${label}: on disk (bytes a row)`,
        value: bytes.current,
        baseline: bytes.v2,
        goal: "(reported)",
        pass: null,
      },
    );
  }
  return out;
}

export const bench: Benchmark = {
  name: "raw-layout",
  about:
    "500,000 raw rows into today's layout beside version 2's (the baseline), alternated, as 200 or 2,000 tabs report and as ingest-rate's bursts arrive.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
