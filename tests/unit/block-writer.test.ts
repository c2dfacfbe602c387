// blockStore (server/store/sqlite/block-writer.ts): what it stores reads back as the
// set of distinct (t, seq) of everything offered, whatever the order, the
// repeats and the redeliveries; what it returns is what it newly stored.
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockStore, type BlockItem } from "../../server/store/sqlite/block-writer.js";
import { decodeBlock, splitIntoBlocks, type PackedRow } from "../../server/store/sqlite/raw-block.js";
import { RAW_BLOCKS_DDL } from "../../server/store/sqlite/schema.js";

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
  it("stores each (t, seq) once, returns only what it newly stored, and keeps the blocks' key columns true", () => {
    fc.assert(
      fc.property(batchesArb, (batches) => {
        const db = new Database(":memory:");
        db.exec(RAW_BLOCKS_DDL);
        const store = blockStore(db);
        // A sample's t is a function of its seq, unless `later` re-sends it at another t.
        const tOf = (seq: number, dt: number, later: boolean) => T0 + (later ? dt : seq * 20_000);
        const expected = new Map<string, string>();
        let maxSeq: number | null = null;
        for (const batch of batches) {
          const items: BlockItem<string>[] = batch.map(({ seq, dt, later }) => {
            const t = tOf(seq, dt, later);
            return { row: row(seq, t, seq * 7 + 1), extra: `${seq} ${t}` };
          });
          const newly = store(SESSION, maxSeq, items).map((i) => i.extra);
          const fresh = [...new Set(items.map((i) => i.extra))].filter((id) => !expected.has(id));
          expect(newly.sort()).toEqual(fresh.sort());
          for (const i of items) expected.set(i.extra, `${i.extra} ${i.row[5]}`);
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
    db.exec(RAW_BLOCKS_DDL);
    const store = blockStore(db);
    const items = (seqs: number[]) => seqs.map((seq) => ({ row: row(seq, T0 + seq, 1), extra: seq }));
    expect(store(SESSION, null, items([0, 1, 2])).map((i) => i.extra)).toEqual([0, 1, 2]);
    expect(store(SESSION, 2, items([2, 3, 5])).map((i) => i.extra)).toEqual([3, 5]);
    // Told (wrongly) that seq 2 is the highest stored, it looks nothing up for
    // seq 3 and calls it new (a lookup would have found it); the stored
    // block's key still keeps the row once.
    expect(store(SESSION, 2, items([3])).map((i) => i.extra)).toEqual([3]);
    expect(storedRows(db)).toHaveLength(5);
    db.close();
  });

  it("stores a batch whose split starts a block at a seq another block of the bucket starts with (that seq at another t)", () => {
    const S = 500;
    const tOf = (seq: number) => T0 + 1_000 + seq * 10;
    // Long latencies, so a few dozen rows fill a block; enough rows before S that a block starts at S.
    const rowsFrom = (lead: number) =>
      Array.from({ length: lead + 20 }, (_, i) => S - lead + i).map((seq) =>
        row(seq, seq === S ? tOf(S) + 5 : tOf(seq), 123_456_789 + seq * 7_919),
      );
    const start = T0 - (T0 % 300_000);
    const lead = Array.from({ length: 400 }, (_, i) => i + 1).find((n) =>
      splitIntoBlocks(SESSION, start, rowsFrom(n)).some((b) => b.key.seq0 === S && b.rows[0]![1] === S),
    );
    expect(lead).toBeDefined();
    const db = new Database(":memory:");
    db.exec(RAW_BLOCKS_DDL);
    const store = blockStore(db);
    // Seq S stored first at its own t, alone: its block's key is (bucket, session, S).
    expect(store(SESSION, null, [{ row: row(S, tOf(S), 1), extra: 0 }])).toHaveLength(1);
    const batch = rowsFrom(lead!).map((r, i) => ({ row: r, extra: i + 1 }));
    expect(store(SESSION, S, batch)).toHaveLength(batch.length);
    const expected = [`${S} ${tOf(S)} 1`, ...batch.map((i) => `${i.row[1]} ${i.row[2]} ${i.row[5]}`)].sort();
    expect(storedRows(db)).toEqual(expected);
    // Redelivered, it stores nothing twice.
    expect(store(SESSION, S + 19, batch)).toHaveLength(0);
    expect(storedRows(db)).toEqual(expected);
    db.close();
  });
});
