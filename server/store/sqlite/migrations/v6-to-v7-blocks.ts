// Version 6 → 7: raw_samples' rows (one per sample, packed columns) into
// raw_blocks (raw-block.ts), one block per session and 5-minute bucket, in
// one transaction with a progress line per page of rows; each session's
// highest seq is written for the writer's duplicate check (block-writer.ts).
// The samples view and raw_samples are dropped: no SQL can read a block.
import type Database from "better-sqlite3";
import { blockStartMs, splitIntoBlocks, type PackedRow } from "../raw-block.js";
import { PACKED_RAW_COLUMNS } from "../raw-layout.js";
import { RAW_BLOCKS_DDL } from "../schema.js";
import { progressLine } from "./progress.js";
import { setVersion, type SqliteStep, type Upgrade } from "./step.js";

function blockRawSamples(db: Database.Database, u: Upgrade): void {
  const total = (db.prepare("SELECT count(*) AS n FROM raw_samples").get() as { n: number }).n;
  u.log(`upgrading database schema 6 → 7: ${total} samples into blocks`);
  db.transaction(() => {
    db.exec(RAW_BLOCKS_DDL);
    const sessionCols = new Set(
      (db.prepare("PRAGMA table_info(sessions)").all() as { name: string }[]).map((c) => c.name),
    );
    if (!sessionCols.has("max_seq")) db.exec("ALTER TABLE sessions ADD COLUMN max_seq INTEGER");
    const insert = db.prepare(
      "INSERT INTO raw_blocks (start_ms, session, seq0, seq_last, n, data) VALUES (?, ?, ?, ?, ?, ?)",
    );
    // Rows come in (t, session, seq) order: a bucket is complete once a row of a later one arrives.
    let openStart: number | null = null;
    let open = new Map<number, PackedRow[]>();
    const maxSeq = new Map<number, number>();
    const flush = () => {
      for (const [session, rows] of open) {
        rows.sort((a, b) => a[1]! - b[1]! || a[2]! - b[2]!);
        for (const block of splitIntoBlocks(session, openStart!, rows))
          insert.run(
            openStart,
            session,
            block.key.seq0,
            block.rows[block.rows.length - 1]![1],
            block.rows.length,
            block.data,
          );
      }
      open = new Map();
    };
    // The writer connection may not run other statements while iterating, so read in keyset pages.
    const page = db.prepare(
      `SELECT ${PACKED_RAW_COLUMNS} FROM raw_samples WHERE (t, session, seq) > (?, ?, ?) ORDER BY t, session, seq LIMIT ?`,
    );
    let after: [number, number, number] = [Number.MIN_SAFE_INTEGER, -1, -1];
    let done = 0;
    for (;;) {
      const rows = page.raw(true).all(...after, u.chunkRows) as PackedRow[];
      if (rows.length === 0) break;
      for (const r of rows) {
        const [session, seq, t] = r as [number, number, number];
        const start = blockStartMs(t);
        if (openStart !== start) {
          flush();
          openStart = start;
        }
        const mine = open.get(session);
        if (mine === undefined) open.set(session, [r]);
        else mine.push(r);
        if (seq > (maxSeq.get(session) ?? -1)) maxSeq.set(session, seq);
      }
      done += rows.length;
      const last = rows[rows.length - 1]!;
      after = [last[2]!, last[0]!, last[1]!];
      u.log(progressLine("6 → 7", done, total));
    }
    flush();
    const blocked = (db.prepare("SELECT coalesce(sum(n), 0) AS n FROM raw_blocks").get() as { n: number }).n;
    if (blocked !== total)
      throw new Error(`upgrade stored ${blocked} of ${total} samples in blocks; database left at version 6`);
    const setMax = db.prepare("UPDATE sessions SET max_seq = ? WHERE id = ?");
    for (const [session, seq] of maxSeq) setMax.run(seq, session);
    db.exec("DROP VIEW IF EXISTS samples; DROP TABLE raw_samples;");
    setVersion(db, 7);
  })();
  u.log("upgraded database schema 6 → 7");
}

export const v6ToV7: SqliteStep = { from: 6, to: 7, run: blockRawSamples };
