// blockStore (server/store/sqlite/block-writer.ts): what it stores reads back as
// the first copy offered of each seq, whatever the order, the repeats and the
// redeliveries at other times, in any bucket; what it returns is what it newly stored.
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockStore, type BlockItem } from "../../server/store/sqlite/block-writer.js";
import { decodeBlock, splitIntoBlocks, type PackedRow } from "../../server/store/sqlite/raw-block.js";
import { RAW_BLOCKS_DDL, RAW_BLOCKS_SEQ_INDEX_DDL } from "../../server/store/sqlite/schema.js";

const T0 = Date.UTC(2026, 10, 26, 11, 58);
const SESSION = 3;
const row = (seq: number, t: number, us: number): PackedRow => [
  SESSION,
  seq,
  t,
  1,
  0,
  us,
  null,
  null,
  null,
  null,
  null,
  null,
];

/** Every stored row of the session, as "seq t us", sorted. */
function storedRows(db: Database.Database): string[] {
  const blocks = db
    .prepare("SELECT start_ms, seq0, seq_last, n, data FROM raw_blocks WHERE session = ?")
    .all(SESSION) as {
    start_ms: number;
    seq0: number;
    seq_last: number;
    n: number;
    data: Uint8Array;
  }[];
  return blocks
    .flatMap((b) => {
      const rows = decodeBlock({ session: SESSION, startMs: b.start_ms, seq0: b.seq0 }, b.data);
      // The key columns agree with the BLOB.
      expect(rows).toHaveLength(b.n);
      expect(rows.at(-1)![1]).toBe(b.seq_last);
      expect(rows.every((r) => r[2]! - (r[2]! % 300_000) === b.start_ms)).toBe(true);
      return rows.map((r) => `${r[1]} ${r[2]} ${r[5]}`);
    })
    .sort();
}

/** Batches of samples of one session: seqs and t's over three 5-minute buckets, with repeats, some at another t. */
const batchesArb = fc.array(
  fc.array(
    fc.record({
      seq: fc.integer({ min: 0, max: 40 }),
      dt: fc.integer({ min: 0, max: 15 * 60_000 }),
      later: fc.boolean(),
    }),
    { minLength: 1, maxLength: 30 },
  ),
  { minLength: 1, maxLength: 6 },
);

describe("blockStore", () => {
  it("stores each seq once (its first copy), returns only what it newly stored, and keeps the blocks' key columns true", () => {
    fc.assert(
      fc.property(batchesArb, (batches) => {
        const db = new Database(":memory:");
        db.exec(RAW_BLOCKS_DDL + RAW_BLOCKS_SEQ_INDEX_DDL);
        const store = blockStore(db);
        // A sample's t is a function of its seq, unless `later` re-sends it at another t.
        const tOf = (seq: number, dt: number, later: boolean) => T0 + (later ? dt : seq * 20_000);
        /** seq → "seq t us" of its first copy offered. */
        const expected = new Map<number, string>();
        let maxSeq: number | null = null;
        for (const batch of batches) {
          const items: BlockItem<string>[] = batch.map(({ seq, dt, later }) => {
            const t = tOf(seq, dt, later);
            return { row: row(seq, t, seq * 7 + 1), extra: `${seq} ${t}` };
          });
          const newly = store(SESSION, maxSeq, items).map((i) => i.extra);
          const fresh: string[] = [];
          for (const i of items)
            if (!expected.has(i.row[1]!)) {
              expected.set(i.row[1]!, `${i.extra} ${i.row[5]}`);
              fresh.push(i.extra);
            }
          expect(newly.sort()).toEqual(fresh.sort());
          for (const i of items) maxSeq = Math.max(maxSeq ?? -1, i.row[1]!);
        }
        expect(storedRows(db)).toEqual([...expected.values()].sort());
        db.close();
      }),
      { numRuns: 300 },
    );
  });

  it("trusts maxSeq: a batch past it is stored without a lookup, one at or below it is checked", () => {
    const db = new Database(":memory:");
    db.exec(RAW_BLOCKS_DDL + RAW_BLOCKS_SEQ_INDEX_DDL);
    const store = blockStore(db);
    const items = (seqs: number[]) => seqs.map((seq) => ({ row: row(seq, T0 + seq, 1), extra: seq }));
    expect(store(SESSION, null, items([0, 1, 2])).map((i) => i.extra)).toEqual([0, 1, 2]);
    expect(store(SESSION, 2, items([2, 3, 5])).map((i) => i.extra)).toEqual([3, 5]);
    // Told (wrongly) that seq 2 is the highest stored, it looks nothing up for
    // seq 3 and calls it new (a lookup would have found it); the stored
    // block's key still keeps the seq once.
    expect(store(SESSION, 2, items([3])).map((i) => i.extra)).toEqual([3]);
    expect(storedRows(db)).toHaveLength(5);
    db.close();
  });

  it("finds a seq re-sent at another t in another bucket, and keeps the first copy", () => {
    const db = new Database(":memory:");
    db.exec(RAW_BLOCKS_DDL + RAW_BLOCKS_SEQ_INDEX_DDL);
    const store = blockStore(db);
    const items = (seqs: number[], dt: number) =>
      seqs.map((seq) => ({ row: row(seq, T0 + seq * 1000 + dt, seq + dt), extra: seq }));
    expect(store(SESSION, null, items([0, 1, 2, 3], 0))).toHaveLength(4);
    // The same seqs a day later, and an hour earlier, with new ones among them.
    expect(store(SESSION, 3, items([2, 3, 4], 86_400_000)).map((i) => i.extra)).toEqual([4]);
    expect(store(SESSION, 4, items([0, 5], -3_600_000)).map((i) => i.extra)).toEqual([5]);
    expect(storedRows(db)).toEqual(
      [
        `0 ${T0} 0`,
        `1 ${T0 + 1000} 1`,
        `2 ${T0 + 2000} 2`,
        `3 ${T0 + 3000} 3`,
        `4 ${T0 + 4000 + 86_400_000} ${4 + 86_400_000}`,
        `5 ${T0 + 5000 - 3_600_000} ${5 - 3_600_000}`,
      ].sort(),
    );
    db.close();
  });

  it("merges a block whose key is taken by a block a version 7 writer left (a seq stored at two times)", () => {
    const db = new Database(":memory:");
    db.exec(RAW_BLOCKS_DDL + RAW_BLOCKS_SEQ_INDEX_DDL);
    const start = T0 - (T0 % 300_000);
    // Version 7 stored seq 10 at two times in one block of the bucket.
    const legacy = [row(10, start + 1, 1), row(10, start + 900, 2), row(12, start + 1000, 3)];
    const [block] = splitIntoBlocks(SESSION, start, legacy);
    db.prepare("INSERT INTO raw_blocks (start_ms, session, seq0, seq_last, n, data) VALUES (?, ?, ?, ?, ?, ?)").run(
      start,
      SESSION,
      10,
      12,
      3,
      block!.data,
    );
    const store = blockStore(db);
    // Told seq 9 is the highest (as a wrong max_seq would), a batch from seq 10 takes the fast path: its block's
    // key (bucket, session, 10) is taken, so the two merge, each seq once and the legacy pair as it was.
    store(SESSION, 9, [
      { row: row(10, start + 5, 4), extra: 0 },
      { row: row(11, start + 6, 5), extra: 1 },
    ]);
    expect(storedRows(db)).toEqual(
      [`10 ${start + 1} 1`, `10 ${start + 900} 2`, `11 ${start + 6} 5`, `12 ${start + 1000} 3`].sort(),
    );
    db.close();
  });
});
