// What the steps that copy raw rows share (versions 1, 2 and 4 into version
// 6's packed row table, v6-rows.ts): the copy in time order, each session's
// span of t gathered on the way, and the end of the step that checks nothing
// was lost before the old tables are dropped.
import type Database from "better-sqlite3";
import { RAW_COLUMNS } from "../../logical-row.js";
import { packRaw } from "../raw-layout.js";
import { progressLine } from "./progress.js";
import { setVersion, type Upgrade } from "./step.js";
import { INSERT_RAW } from "./v6-rows.js";

/** Each session's oldest and newest t, gathered while its rows are copied. */
export type Spans = Map<number, { lo: number; hi: number }>;

export function widen(spans: Spans, session: number, t: number): void {
  const span = spans.get(session);
  if (span === undefined) spans.set(session, { lo: t, hi: t });
  else if (t < span.lo) span.lo = t;
  else if (t > span.hi) span.hi = t;
}

/**
 * The end of an upgrade's transaction: every sample copied (or the whole
 * transaction rolls back), each session's span of t written, the old tables
 * dropped, the version it reached set.
 */
export function finishUpgrade(
  db: Database.Database,
  from: number,
  to: number,
  total: number,
  spans: Spans,
  dropOld: string,
): void {
  const copied = (db.prepare("SELECT count(*) AS n FROM raw_samples").get() as { n: number }).n;
  if (copied !== total)
    throw new Error(`upgrade copied ${copied} of ${total} samples; database left at version ${from}`);
  const setSpan = db.prepare("UPDATE sessions SET first_t = ?, last_t = ? WHERE id = ?");
  for (const [id, { lo, hi }] of spans) setSpan.run(lo, hi, id);
  db.exec(dropOld);
  setVersion(db, to);
}

/**
 * Copies the raw rows of an older layout's table (one column per field,
 * RAW_COLUMNS) into raw_samples, packed, in time order (read through the
 * source's t order, so every page of the new table is appended to and left
 * full), with a progress line per page of rows.
 */
export function copyPacked(
  db: Database.Database,
  source: string,
  step: string,
  total: number,
  u: Upgrade,
  visit?: (row: (number | null)[]) => void,
): void {
  const methods = new Map(
    (db.prepare("SELECT id, method FROM series").all() as { id: number; method: string }[]).map((s) => [
      s.id,
      s.method,
    ]),
  );
  const page = db.prepare(
    `SELECT ${RAW_COLUMNS} FROM ${source} WHERE t >= ? AND (t, session, seq) > (?, ?, ?) ORDER BY t, session, seq LIMIT ?`,
  );
  const add = db.prepare(INSERT_RAW);
  let after: [number, number, number] = [Number.MIN_SAFE_INTEGER, -1, -1];
  let done = 0;
  for (;;) {
    const rows = page.raw(true).all(after[0], ...after, u.chunkRows) as (number | null)[][];
    if (rows.length === 0) break;
    for (const r of rows) {
      add.run(packRaw(r, methods.get(r[3]!) ?? ""));
      visit?.(r);
    }
    done += rows.length;
    const last = rows[rows.length - 1]!;
    after = [last[2]!, last[0]!, last[1]!];
    u.log(progressLine(step, done, total));
  }
}
