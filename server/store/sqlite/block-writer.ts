// Storing one session's new samples as blocks (raw-block.ts): one block per
// 5-minute bucket the batch touches, and nothing that is stored already.
// A sample's identity is (t, session, seq), as raw_samples' key made it: a
// redelivered sample keeps its t, hence its bucket, so a duplicate is looked
// for only in that bucket's blocks of the session, and only when the batch
// goes back to seqs at or below the session's highest stored one (a page's
// outbox sends in seq order, so a batch that does not needs no lookup).
import type Database from "better-sqlite3";
import { blockStartMs, decodeBlock, splitIntoBlocks, type PackedRow } from "./raw-block.js";

/** A sample to store, with whatever the caller keeps beside its packed row (its logical values, for the rollups). */
export interface BlockItem<T> {
  row: PackedRow;
  extra: T;
}

/**
 * Returns store(session, maxSeq, items): writes the items not stored yet
 * (each (t, seq) once, also within the items) and returns them, in
 * (bucket, seq, t) order. maxSeq is the session's highest stored seq, or null.
 */
export function blockStore(
  db: Database.Database,
): <T>(session: number, maxSeq: number | null, items: readonly BlockItem<T>[]) => BlockItem<T>[] {
  const overlapping = db.prepare<[number, number, number, number], { seq0: number; data: Uint8Array }>(
    "SELECT seq0, data FROM raw_blocks WHERE start_ms = ? AND session = ? AND seq0 <= ? AND seq_last >= ?",
  );
  const bySeq0 = db.prepare<[number, number, number], { data: Uint8Array }>(
    "SELECT data FROM raw_blocks WHERE start_ms = ? AND session = ? AND seq0 = ?",
  );
  const remove = db.prepare("DELETE FROM raw_blocks WHERE start_ms = ? AND session = ? AND seq0 = ?");
  const insert = db.prepare(
    "INSERT INTO raw_blocks (start_ms, session, seq0, seq_last, n, data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  /**
   * Writes rows (sorted, distinct (seq, t)) as blocks. A block whose seq0 is
   * some stored block's (a seq stored at two times, the other one first in its
   * block) takes that block's rows in and is split again: the insert's
   * conflict says so, so the common path costs no lookup. Each merge removes a
   * stored block, so it ends.
   */
  const write = (session: number, startMs: number, rows: readonly PackedRow[]): void => {
    for (const block of splitIntoBlocks(session, startMs, rows)) {
      const { seq0 } = block.key;
      if (
        insert.run(startMs, session, seq0, block.rows[block.rows.length - 1]![1], block.rows.length, block.data)
          .changes === 1
      )
        continue;
      const stored = decodeBlock({ session, startMs, seq0 }, bySeq0.get(startMs, session, seq0)!.data);
      remove.run(startMs, session, seq0);
      const ids = new Set(stored.map((r) => `${r[1]} ${r[2]}`));
      const merged = [...stored, ...block.rows.filter((r) => !ids.has(`${r[1]} ${r[2]}`))].sort(
        (a, b) => a[1]! - b[1]! || a[2]! - b[2]!,
      );
      write(session, startMs, merged);
    }
  };
  return (session, maxSeq, items) => {
    const byBucket = new Map<number, BlockItem<(typeof items)[number]["extra"]>[]>();
    for (const item of items) {
      const start = blockStartMs(item.row[2]!);
      const bucket = byBucket.get(start);
      if (bucket === undefined) byBucket.set(start, [item]);
      else bucket.push(item);
    }
    const stored: BlockItem<(typeof items)[number]["extra"]>[] = [];
    for (const [startMs, bucket] of [...byBucket].sort((a, b) => a[0] - b[0])) {
      bucket.sort((a, b) => a.row[1]! - b.row[1]! || a.row[2]! - b.row[2]!);
      const first = bucket[0]!.row[1]!;
      // The stored (seq, t) of the blocks the batch's seqs overlap: looked up
      // only when the batch goes back to a stored seq.
      const before = new Set<string>();
      if (maxSeq !== null && first <= maxSeq)
        for (const b of overlapping.all(startMs, session, bucket[bucket.length - 1]!.row[1]!, first)) {
          for (const r of decodeBlock({ session, startMs, seq0: b.seq0 }, b.data)) before.add(`${r[1]} ${r[2]}`);
        }
      // Sorted, a repeat within the items is the row before it.
      const fresh = bucket.filter((item, i) => {
        const prev = i === 0 ? undefined : bucket[i - 1]!.row;
        if (prev !== undefined && prev[1] === item.row[1] && prev[2] === item.row[2]) return false;
        return before.size === 0 || !before.has(`${item.row[1]} ${item.row[2]}`);
      });
      if (fresh.length === 0) continue;
      write(
        session,
        startMs,
        fresh.map((item) => item.row),
      );
      stored.push(...fresh);
    }
    return stored;
  };
}
