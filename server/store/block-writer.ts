// Storing one session's new samples as blocks (raw-block.ts): one block per
// 5-minute bucket the batch touches, and nothing that is stored already.
// A sample's identity is (t, session, seq), as raw_samples' key made it: a
// redelivered sample keeps its t, hence its bucket, so a duplicate is looked
// for only in that bucket's blocks of the session, and only when the batch
// goes back to seqs at or below the session's highest stored one (a page's
// outbox sends in seq order, so a batch that does not needs no lookup).
import type Database from "better-sqlite3";
import { blockStartMs, decodeBlock, encodeBlock, splitIntoBlocks, type PackedRow } from "./raw-block.js";


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
export function blockStore(db: Database.Database): <T>(session: number, maxSeq: number | null, items: readonly BlockItem<T>[]) => BlockItem<T>[] {
  const overlapping = db.prepare<[number, number, number, number], { seq0: number; data: Uint8Array }>(
    "SELECT seq0, data FROM raw_blocks WHERE start_ms = ? AND session = ? AND seq0 <= ? AND seq_last >= ?",
  );
  const remove = db.prepare("DELETE FROM raw_blocks WHERE start_ms = ? AND session = ? AND seq0 = ?");
  const insert = db.prepare("INSERT INTO raw_blocks (start_ms, session, seq0, seq_last, n, data) VALUES (?, ?, ?, ?, ?, ?)");
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
      const seen = new Set<string>();
      const first = bucket[0]!.row[1]!;
      /** The stored rows of each block the lookup found, by seq0. */
      const found = new Map<number, PackedRow[]>();
      if (maxSeq !== null && first <= maxSeq)
        for (const b of overlapping.all(startMs, session, bucket[bucket.length - 1]!.row[1]!, first)) {
          const rows = decodeBlock({ session, startMs, seq0: b.seq0 }, b.data);
          found.set(b.seq0, rows);
          for (const r of rows) seen.add(`${r[1]} ${r[2]}`);
        }
      const fresh = bucket.filter((item) => {
        const id = `${item.row[1]} ${item.row[2]}`;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      });
      if (fresh.length === 0) continue;
      const seq0 = fresh[0]!.row[1]!;
      let rows = fresh.map((item) => item.row);
      // A block keyed by this seq0 already (its seq at another t): the two become one block.
      const same = found.get(seq0);
      if (same !== undefined) {
        rows = [...same, ...rows].sort((a, b) => a[1]! - b[1]! || a[2]! - b[2]!);
        remove.run(startMs, session, seq0);
      }
      for (const block of splitIntoBlocks(session, startMs, rows))
        insert.run(startMs, session, block.key.seq0, block.rows[block.rows.length - 1]![1], block.rows.length, encodeBlock(block.key, block.rows));
      stored.push(...fresh);
    }
    return stored;
  };
}
