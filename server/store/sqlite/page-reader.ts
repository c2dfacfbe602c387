// The page reader (../page-reader.ts) on SQLite: its own read-only
// connection to the file (the writer's connection for an in-memory store,
// whose pages then read between writes). Raw samples are in blocks
// (raw-block.ts): it reads one 5-minute bucket's blocks at a time (a fresh
// SELECT each, no snapshot held across yields), keeps the rows the filter
// keeps (row-matcher.ts), sorts them by (t, session, seq) and hands them out
// in pages, so memory is one bucket's rows whatever the range.
import Database from "better-sqlite3";
import { BEST2_LEGS, OUTCOMES } from "../../../shared/methods.js";
import { phaseOfCode } from "../../../shared/stress/phases.js";
import { toMsOrNull } from "../logical-row.js";
import { yieldTurn } from "../pace.js";
import { PAGE_ROWS_DEFAULT, type PageReader, type RawSampleRow } from "../page-reader.js";
import type { PackedRow } from "./raw-block.js";
import { PACKED_STRESS_INDEX, unpackSample, unpackStress } from "./raw-layout.js";
import { bucketRange, rowsOfBlock, type StoredBlock } from "./raw-reads.js";
import { rowMatcher, type RowContext } from "./row-matcher.js";

const nameOf = <T extends string>(names: readonly T[], code: number | null): T | null =>
  code === null ? null : (names[code] ?? null);

/**
 * A reader on its own read-only connection to an SQLite file (the writer's
 * connection for an in-memory store, whose pages then read between writes).
 * Raw samples are in blocks (raw-block.ts): it reads one 5-minute bucket's
 * blocks at a time (a fresh SELECT each, no snapshot held across yields),
 * keeps the rows the filter keeps (rowMatcher, sampleWhere's JavaScript
 * form), sorts them by (t, session, seq) and hands them out in pages, so
 * memory is one bucket's rows whatever the range.
 */
export function openSqlitePageReader(writer: Database.Database): PageReader {
  const file = writer.name;
  const own = file !== ":memory:" && file !== "";
  const db = own ? new Database(file, { readonly: true, fileMustExist: true }) : writer;
  if (own) db.pragma("busy_timeout = 5000");
  const readReason = db.prepare<[number], { text: string }>("SELECT text FROM reasons WHERE id = ?");
  // Reasons are few and never change once written: each is read once.
  const reasons = new Map<number, string | null>();
  const reasonText = (id: number): string | null => {
    let text = reasons.get(id);
    if (text === undefined) reasons.set(id, (text = readReason.get(id)?.text ?? null));
    return text;
  };
  const readRunKey = db.prepare<[number], { run_key: string }>("SELECT run_key FROM stress_runs WHERE id = ?");
  const findRun = db.prepare<[string], { id: number }>("SELECT id FROM stress_runs WHERE run_key = ?");
  // Runs are read as rows name them: the table is not read whole (a year of hourly tests from many clients).
  const runKeys = new Map<number, string | null>();
  const runKey = (id: number): string | null => {
    let key = runKeys.get(id);
    if (key === undefined) {
      if (runKeys.size > 10_000) runKeys.clear();
      runKeys.set(id, (key = readRunKey.get(id)?.run_key ?? null));
    }
    return key;
  };
  const nextBucket = db.prepare<[number, number], { start: number | null }>(
    "SELECT min(start_ms) AS start FROM raw_blocks WHERE start_ms >= ? AND start_ms <= ?",
  );
  const bucketBlocks = db
    .prepare<[number]>("SELECT start_ms, session, seq0, data FROM raw_blocks WHERE start_ms = ?")
    .raw(true);
  const readSeries = db.prepare<[], { id: number; method: string; target: string }>(
    "SELECT id, method, target FROM series",
  );
  type SessionRow = {
    id: number;
    session_key: string;
    client_id: string;
    timer_resolution_us: number | null;
    engine: string | null;
  };
  const readSessions = db.prepare<[], SessionRow>(
    "SELECT id, session_key, client_id, timer_resolution_us, engine FROM sessions",
  );
  let series = new Map<number, { method: string; target: string }>();
  let sessions = new Map<number, SessionRow>();
  // Series and sessions added while an export runs are read when a row names one.
  const reload = () => {
    series = new Map(readSeries.all().map((s) => [s.id, s]));
    sessions = new Map(readSessions.all().map((s) => [s.id, s]));
  };
  const known = (row: PackedRow) => {
    if (!series.has(row[3]!) || !sessions.has(row[0]!)) reload();
    return series.has(row[3]!) && sessions.has(row[0]!);
  };
  const ctx: RowContext = {
    seriesOf: (id) => series.get(id),
    clientIdOf: (session) => sessions.get(session)?.client_id,
  };
  /** A packed row as version 6's samples view returned it, joined with its session. */
  const viewRow = (r: PackedRow): RawSampleRow => {
    const [session, seq, t, seriesId, status, us, sched, lateUs, hiddenUs, detail, lagUs, serverUs] = r as [
      number,
      number,
      number,
      number,
      number,
      ...(number | null)[],
    ];
    const { method, target } = series.get(seriesId)!;
    const { client_id, session_key, timer_resolution_us, engine } = sessions.get(session)!;
    const u = unpackSample(method, status, sched ?? null, lateUs ?? null, detail ?? null);
    const stress = unpackStress(r[PACKED_STRESS_INDEX]);
    return [
      t,
      client_id,
      session_key,
      seq,
      method,
      target,
      toMsOrNull(us ?? null),
      nameOf(OUTCOMES, u.outcome)!,
      u.schedMs === null ? null : t - u.schedMs,
      toMsOrNull(lateUs ?? null),
      toMsOrNull(hiddenUs ?? null),
      u.flags,
      u.reason === null ? null : reasonText(u.reason),
      nameOf(BEST2_LEGS, u.winner),
      toMsOrNull(u.otherUs),
      nameOf(OUTCOMES, u.otherOutcome),
      toMsOrNull(u.minrttUs),
      toMsOrNull(lagUs ?? null),
      toMsOrNull(serverUs ?? null),
      session,
      timer_resolution_us,
      engine,
      stress.load === null ? null : phaseOfCode(stress.load),
      stress.run === null ? null : runKey(stress.run),
    ];
  };
  return {
    async *pages(filter, pageRows = PAGE_ROWS_DEFAULT) {
      reload();
      ctx.stressRunCode = filter.stressRun === undefined ? undefined : (findRun.get(filter.stressRun)?.id ?? null);
      const keep = rowMatcher(filter, ctx);
      const fromMs = Math.ceil(filter.fromMs);
      const toMs = Math.floor(filter.toMs);
      let [lo, hi] = bucketRange(fromMs, toMs);
      let page: RawSampleRow[] = [];
      for (;;) {
        const start = nextBucket.get(lo, hi)?.start ?? null;
        if (start === null) break;
        const rows: PackedRow[] = [];
        for (const block of bucketBlocks.all(start) as StoredBlock[])
          rowsOfBlock(block, fromMs, toMs, (r) => {
            if (known(r) && keep(r)) rows.push(r);
          });
        rows.sort((a, b) => a[2]! - b[2]! || a[0]! - b[0]! || a[1]! - b[1]!);
        for (const r of rows) {
          page.push(viewRow(r));
          if (page.length === pageRows) {
            yield page;
            page = [];
          }
        }
        lo = start + 1;
        // Let echo answers and ingest run between buckets.
        await yieldTurn();
      }
      if (page.length > 0) yield page;
    },
    close() {
      if (own) db.close();
    },
  };
}
