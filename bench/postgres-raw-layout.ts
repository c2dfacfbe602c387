// Whether PostgreSQL should keep raw samples in blocks as SQLite does
// (docs/decisions: "PostgreSQL keeps a row per raw sample"): the same
// samples stored both ways on one throwaway cluster, alternating, in
// raw-layout's arrival pattern (200 tabs reporting their last 5 s every
// 5 s, 10 batches a commit): today's row per sample (raw_samples' columns,
// partitioned by day, keyed (session, seq, t), a t index) and SQLite's blocks
// (server/store/sqlite/raw-block.ts: a row per session and 5-minute bucket of
// a write, partitioned by day, keyed (start_ms, session, seq0), an index on
// (session, seq_last)). Prints bytes a sample on disk (tables, indexes,
// TOAST), samples inserted a second, and the time to read every sample of
// the range and one series' samples back into JavaScript.
// Not in `npm run bench`'s list (it holds the habitual ten minutes). Run:
// npx tsx bench/postgres-raw-layout.ts [smoke|full]
import { performance } from "node:perf_hooks";
import type postgres from "postgres";
import { RAW_COLUMNS } from "../server/store/logical-row.js";
import { connect } from "../server/store/postgres/connect.js";
import { arrayLiteral } from "../server/store/postgres/rollup-writer.js";
import { blockStartMs, decodeBlock, splitIntoBlocks, type PackedRow } from "../server/store/sqlite/raw-block.js";
import { packRaw, TYPICAL_FLAGS } from "../server/store/sqlite/raw-layout.js";
import { postgresBinDir, POSTGRES_MISSING, startPostgres } from "../testkit/postgres.js";
import { type Benchmark, type BenchRow, type BenchSize, median } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { rows: 20_000, rounds: 1 }, full: { rows: 400_000, rounds: 3 } } as const;
const DAY_MS = 86_400_000;
const T0 = Date.UTC(2026, 10, 20);
/** Series 1..13 as raw-layout's; series 1 is the one the filtered read keeps. */
const SERIES_READ = 1;

type Row = (number | null)[];

/** A visible page's probe as the page sends it (raw-layout.ts's row). */
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

/** 200 tabs, each reporting its last 5 s (65 samples) every 5 s at its own phase; 10 batches a commit. */
function commits(total: number): Row[][] {
  const TABS = 200;
  const seqs = new Array<number>(TABS).fill(0);
  const out: Row[][] = [];
  let n = 0;
  for (let cycle = 0; n < total; cycle++)
    for (let g = 0; g < TABS && n < total; g += 10) {
      const end = T0 + 5000 * cycle + (g / TABS) * 5000;
      const commit: Row[] = [];
      for (let c = g; c < g + 10; c++)
        for (let i = 0; i < 65; i++) commit.push(row(c + 1, seqs[c]!++, end - 5000 + i * 77 + ((c * 13) % 77), i));
      n += commit.length;
      out.push(commit);
    }
  return out;
}

const RAW_TYPES =
  "integer bigint bigint integer smallint bigint bigint bigint bigint integer integer smallint bigint smallint bigint bigint bigint".split(
    " ",
  );

async function createTables(sql: postgres.Sql, days: number[]): Promise<void> {
  await sql.unsafe(`
    DROP TABLE IF EXISTS raw_rows; DROP TABLE IF EXISTS raw_blocks;
    CREATE TABLE raw_rows (${RAW_COLUMNS.split(", ")
      .map((c, i) => `${c} ${RAW_TYPES[i]}${i < 5 || c === "flags" ? " NOT NULL" : ""}`)
      .join(", ")}, PRIMARY KEY (session, seq, t)) PARTITION BY RANGE (t);
    CREATE INDEX raw_rows_t ON raw_rows (t);
    CREATE TABLE raw_blocks (start_ms bigint NOT NULL, session integer NOT NULL, seq0 bigint NOT NULL,
      seq_last bigint NOT NULL, n integer NOT NULL, data bytea NOT NULL, PRIMARY KEY (start_ms, session, seq0))
      PARTITION BY RANGE (start_ms);
    CREATE INDEX raw_blocks_session_seq ON raw_blocks (session, seq_last);`);
  for (const day of days) {
    const name = new Date(day).toISOString().slice(0, 10).replace(/-/g, "");
    await sql.unsafe(
      `CREATE TABLE raw_rows_${name} PARTITION OF raw_rows FOR VALUES FROM (${day}) TO (${day + DAY_MS});
       CREATE TABLE raw_blocks_${name} PARTITION OF raw_blocks FOR VALUES FROM (${day}) TO (${day + DAY_MS});`,
    );
  }
}

const INSERT_ROWS = `INSERT INTO raw_rows (${RAW_COLUMNS}) SELECT * FROM unnest(${RAW_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(", ")})`;
const INSERT_BLOCKS = `INSERT INTO raw_blocks (start_ms, session, seq0, seq_last, n, data)
  SELECT s, se, q0, ql, n, decode(d, 'hex') FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::bigint[], $5::integer[], $6::text[]) AS v (s, se, q0, ql, n, d)`;

/** A commit's rows as blocks: per session and 5-minute bucket, split as the SQLite writer splits them. */
function blocksOf(
  commit: Row[],
): { start: number; session: number; seq0: number; seqLast: number; n: number; hex: string }[] {
  const groups = new Map<string, PackedRow[]>();
  for (const r of commit) {
    const k = `${r[0]} ${blockStartMs(r[2]!)}`;
    const g = groups.get(k);
    const packed = packRaw(r, "xhr");
    if (g === undefined) groups.set(k, [packed]);
    else g.push(packed);
  }
  const out: { start: number; session: number; seq0: number; seqLast: number; n: number; hex: string }[] = [];
  for (const rows of groups.values()) {
    rows.sort((a, b) => a[1]! - b[1]!);
    const start = blockStartMs(rows[0]![2]!);
    for (const b of splitIntoBlocks(rows[0]![0]!, start, rows))
      out.push({
        start,
        session: b.key.session,
        seq0: b.key.seq0,
        seqLast: b.rows.at(-1)![1]!,
        n: b.rows.length,
        hex: Buffer.from(b.data).toString("hex"),
      });
  }
  return out;
}

async function insertAll(sql: postgres.Sql, layout: "rows" | "blocks", all: Row[][]): Promise<number> {
  await sql.unsafe(layout === "rows" ? "TRUNCATE raw_rows" : "TRUNCATE raw_blocks");
  let n = 0;
  const t0 = performance.now();
  for (const commit of all) {
    await sql.begin(async (tx) => {
      if (layout === "rows")
        await tx.unsafe(
          INSERT_ROWS,
          RAW_TYPES.map((_, c) => arrayLiteral(commit.map((r) => r[c] ?? null))),
        );
      else {
        const blocks = blocksOf(commit);
        await tx.unsafe(INSERT_BLOCKS, [
          arrayLiteral(blocks.map((b) => b.start)),
          arrayLiteral(blocks.map((b) => b.session)),
          arrayLiteral(blocks.map((b) => b.seq0)),
          arrayLiteral(blocks.map((b) => b.seqLast)),
          arrayLiteral(blocks.map((b) => b.n)),
          arrayLiteral(blocks.map((b) => b.hex)),
        ]);
      }
    });
    n += commit.length;
  }
  return n / ((performance.now() - t0) / 1000);
}

async function bytesOf(sql: postgres.Sql, table: string): Promise<number> {
  await sql.unsafe(`VACUUM ANALYZE ${table}`);
  const [r] = await sql.unsafe(
    `SELECT sum(pg_total_relation_size(c.oid)) AS b FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '${table}'::regclass`,
  );
  return Number(r!.b);
}

/** Reads the range's samples into JavaScript (every one, or series 1's) through a cursor, as the read pool does; ms. */
async function readTime(
  sql: postgres.Sql,
  layout: "rows" | "blocks",
  from: number,
  to: number,
  oneSeries: boolean,
): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  if (layout === "rows") {
    const where = oneSeries ? ` AND series = ${SERIES_READ}` : "";
    await sql
      .unsafe(`SELECT ${RAW_COLUMNS} FROM raw_rows WHERE t >= ${from} AND t <= ${to}${where}`)
      .values()
      .cursor(2000, (rows) => void (n += rows.length));
  } else
    await sql
      .unsafe(
        `SELECT start_ms, session, seq0, data FROM raw_blocks WHERE start_ms >= ${blockStartMs(from)} AND start_ms <= ${to}`,
      )
      .values()
      .cursor(500, (rows) => {
        for (const [start, session, seq0, data] of rows as [number, number, number, Uint8Array][])
          for (const r of decodeBlock({ startMs: start, session, seq0 }, data))
            if (r[2]! >= from && r[2]! <= to && (!oneSeries || r[3] === SERIES_READ)) n++;
      });
  if (n === 0) throw new Error(`${layout}: nothing read`);
  return performance.now() - t0;
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  if (postgresBinDir() === null) {
    console.log(`postgres-raw-layout: ${POSTGRES_MISSING}`);
    return [];
  }
  const { rows: total, rounds } = SIZES[size];
  const pg = await startPostgres();
  const sql = connect(await pg.createDatabase("layouts"), 2);
  try {
    const all = commits(total);
    const last = all.at(-1)!.at(-1)![2]!;
    await createTables(
      sql,
      [T0 - DAY_MS, T0, T0 + DAY_MS, T0 + 2 * DAY_MS].filter((d) => d <= last),
    );
    const rate = { rows: [] as number[], blocks: [] as number[] };
    for (let r = 0; r < rounds; r++)
      for (const layout of ["rows", "blocks"] as const) rate[layout].push(await insertAll(sql, layout, all));
    const bytes = {
      rows: (await bytesOf(sql, "raw_rows")) / total,
      blocks: (await bytesOf(sql, "raw_blocks")) / total,
    };
    const reads = { rows: [] as number[], blocks: [] as number[] };
    const series = { rows: [] as number[], blocks: [] as number[] };
    for (let r = 0; r < Math.max(3, rounds); r++)
      for (const layout of ["rows", "blocks"] as const) {
        reads[layout].push(await readTime(sql, layout, T0, last, false));
        series[layout].push(await readTime(sql, layout, T0, last, true));
      }
    const m = (x: { rows: number[]; blocks: number[] }) => ({ rows: median(x.rows), blocks: median(x.blocks) });
    const [ins, rd, se] = [m(rate), m(reads), m(series)];
    console.log(
      `postgres-raw-layout: ${total} samples; bytes a sample rows ${bytes.rows.toFixed(1)}, blocks ${bytes.blocks.toFixed(1)}; ` +
        `inserted/s rows ${ins.rows.toFixed(0)}, blocks ${ins.blocks.toFixed(0)}; read all ${rd.rows.toFixed(0)} / ${rd.blocks.toFixed(0)} ms; ` +
        `one series ${se.rows.toFixed(0)} / ${se.blocks.toFixed(0)} ms`,
    );
    const out = (figure: string, v: { rows: number; blocks: number }): BenchRow => ({
      figure: `PostgreSQL raw samples in blocks: ${figure} (baseline: a row per sample)`,
      value: v.blocks,
      baseline: v.rows,
      goal: "(reported)",
      pass: null,
    });
    return [
      out("bytes a sample on disk, indexes and TOAST included", bytes),
      out("samples inserted a second, 10 tabs' reports a commit", ins),
      out(`reading every sample of ${total.toLocaleString("en")} into JavaScript (ms)`, rd),
      out("reading one series' samples (ms)", se),
    ];
  } finally {
    await sql.end({ timeout: 5 });
    await pg.stop();
  }
}

export const bench: Benchmark = {
  name: "postgres-raw-layout",
  about:
    "PostgreSQL's raw samples as a row each (today) against SQLite-style blocks: bytes a sample, insert rate, read times (decision 0027; run alone, not in npm run bench).",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
