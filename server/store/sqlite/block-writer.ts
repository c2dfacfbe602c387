// Storing one session's new samples as blocks (raw-block.ts): one block per
// 5-minute bucket the batch touches, and nothing that is stored already. A
// sample's identity is (session, seq) (schema version 8): a re-sent sample
// counts once whatever t it carries, so a duplicate may sit in any bucket.
// It is looked for only when the batch goes back to seqs at or below the
// session's highest stored one (a page's outbox sends in seq order, so a
// batch that does not needs no lookup), and then by the blocks' seq ranges
// (index raw_blocks_session_seq), not by time.
import type Database from "better-sqlite3";
import { blockStartMs, decodeBlock, splitIntoBlocks, type PackedRow } from "./raw-block.js";

/** A sample to store, with whatever the caller keeps beside its packed row (its logical values, for the rollups). */
export interface BlockItem<T> {
  row: PackedRow;
  extra: T;
}

/**
 * Returns store(session, maxSeq, items): writes the items whose seq is not
 * stored yet (each seq once, also within the items: the first offered) and
 * returns them, in (bucket, seq) order. maxSeq is the session's highest
 * stored seq, or null: trusted, a batch past it is not looked up.
 */
export function blockStore(
  db: Database.Database,
): <T>(session: number, maxSeq: number | null, items: readonly BlockItem<T>[]) => BlockItem<T>[] {
  const overlapping = db.prepare<[number, number, number], { start_ms: number; seq0: number; data: Uint8Array }>(
    "SELECT start_ms, seq0, data FROM raw_blocks WHERE session = ? AND seq_last >= ? AND seq0 <= ?",
  );
  const bySeq0 = db.prepare<[number, number, number], { data: Uint8Array }>(
    "SELECT data FROM raw_blocks WHERE start_ms = ? AND session = ? AND seq0 = ?",
  );
  const remove = db.prepare("DELETE FROM raw_blocks WHERE start_ms = ? AND session = ? AND seq0 = ?");
  const insert = db.prepare(
    "INSERT INTO raw_blocks (start_ms, session, seq0, seq_last, n, data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  /**
   * Writes rows (sorted by seq, each seq once) as blocks. A block whose key
   * is taken (only where maxSeq was wrong, or a file written before version
   * 8 holds a seq at two times) takes the stored block's rows in, keeping its
   * copy of a seq, and is split again: the insert's conflict says so, so the
   * common path costs no lookup. Each merge removes a stored block, so it ends.
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
      const seqs = new Set(stored.map((r) => r[1]));
      const merged = [...stored, ...block.rows.filter((r) => !seqs.has(r[1]))].sort(
        (a, b) => a[1]! - b[1]! || a[2]! - b[2]!,
      );
      write(session, startMs, merged);
    }
  };
  /** The seqs of [lo, hi] the session has stored, in any bucket. */
  const storedSeqs = (session: number, lo: number, hi: number): Set<number> => {
    const seqs = new Set<number>();
    for (const b of overlapping.all(session, lo, hi))
      for (const r of decodeBlock({ session, startMs: b.start_ms, seq0: b.seq0 }, b.data))
        if (r[1]! >= lo && r[1]! <= hi) seqs.add(r[1]!);
    return seqs;
  };
  return (session, maxSeq, items) => {
    type Item = (typeof items)[number];
    // Each seq once: the first copy offered, unless one is stored already.
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (const item of items) {
      lo = Math.min(lo, item.row[1]!);
      hi = Math.max(hi, item.row[1]!);
    }
    const taken = maxSeq !== null && lo <= maxSeq ? storedSeqs(session, lo, Math.min(hi, maxSeq)) : new Set<number>();
    const fresh: Item[] = [];
    for (const item of items) {
      if (taken.has(item.row[1]!)) continue;
      taken.add(item.row[1]!);
      fresh.push(item);
    }
    const byBucket = new Map<number, Item[]>();
    for (const item of fresh) {
      const start = blockStartMs(item.row[2]!);
      const bucket = byBucket.get(start);
      if (bucket === undefined) byBucket.set(start, [item]);
      else bucket.push(item);
    }
    const stored: Item[] = [];
    for (const [startMs, bucket] of [...byBucket].sort((a, b) => a[0] - b[0])) {
      bucket.sort((a, b) => a.row[1]! - b.row[1]!);
      write(
        session,
        startMs,
        bucket.map((item) => item.row),
      );
      stored.push(...bucket);
    }
    return stored;
  };
}
