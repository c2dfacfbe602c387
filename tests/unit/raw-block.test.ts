// Raw sample blocks (server/store/sqlite/raw-block.ts): every row packRaw can make
// reads back exactly, a page's usual probe costs a few bytes, and a damaged
// block is refused rather than read as other samples.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BLOCK_BYTES_MAX,
  BLOCK_FORMAT,
  BlockFormatError,
  BlockRowError,
  decodeBlock,
  encodeBlock,
  NULLABLE,
  splitIntoBlocks,
  type BlockKey,
  type PackedRow,
} from "../../server/store/sqlite/raw-block.js";
import { packSample } from "../../server/store/sqlite/raw-layout.js";
import { rawValues } from "../../server/store/logical-row.js";
import type { Sample } from "../../shared/contract/index.js";

const START = Date.UTC(2026, 10, 26, 12, 0);
const BUCKET_MS = 300_000;
const SAFE_HALF = Math.floor(Number.MAX_SAFE_INTEGER / 2);

/** One session's rows: (seq, t) strictly increasing from seq0 (a seq may repeat at a later t), any integer in every nullable column. */
const blockArb = fc
  .record({
    session: fc.integer({ min: 1, max: 2 ** 40 }),
    seq0: fc.integer({ min: 0, max: 2 ** 40 }),
    rows: fc.array(
      fc.record({
        seqStep: fc.oneof(fc.constant(1), fc.constant(0), fc.integer({ min: 1, max: 2 ** 31 })),
        t: fc.oneof(fc.integer({ min: START, max: START + BUCKET_MS - 1 }), fc.integer({ min: 0, max: 2 ** 45 })),
        series: fc.integer({ min: 0, max: 2 ** 20 }),
        status: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
        nullable: fc.array(
          fc.option(
            fc.oneof(fc.integer({ min: -1000, max: 100_000 }), fc.integer({ min: -SAFE_HALF, max: SAFE_HALF })),
            { nil: null },
          ),
          {
            minLength: NULLABLE.length,
            maxLength: NULLABLE.length,
          },
        ),
      }),
      { minLength: 1, maxLength: 60 },
    ),
  })
  .map(({ session, seq0, rows }) => {
    let seq = seq0;
    let t = 0;
    const packed = rows.map((r, i): PackedRow => {
      // A repeated seq comes back at a later t, as a page that re-sent it with a new one.
      const step = i === 0 ? 0 : r.seqStep;
      t = i > 0 && step === 0 ? t + 1 + (r.t % 1000) : r.t;
      seq += step;
      return [session, seq, t, r.series, r.status, ...r.nullable];
    });
    return { key: { session, startMs: START, seq0 } satisfies BlockKey, rows: packed };
  });

/** A visible page's ws probe as the writer packs it (writer.ts rawValues, raw-layout.ts packRaw). */
function pageProbe(seq: number, t: number): PackedRow {
  const s: Sample & { serverMs: number } = {
    seq,
    t,
    scheduledT: t - 2,
    method: "ws",
    target: "A",
    ms: 1.234,
    outcome: "ok",
    lateMs: 1.9,
    hiddenMs: 0,
    visibleAtSend: true,
    visibleAtReply: true,
    serverLagMs: 0.412,
    serverMs: 0.031,
  };
  const codes = { seriesOf: () => 3, reasonOf: () => 1, runOf: () => 1 };
  return packSample(rawValues(7, s, codes), "ws");
}

describe("raw sample blocks", () => {
  it("read back every row exactly, in seq order", () => {
    fc.assert(
      fc.property(blockArb, ({ key, rows }) => {
        const blob = encodeBlock(key, rows);
        expect(blob[0]).toBe(BLOCK_FORMAT);
        expect(decodeBlock(key, blob)).toEqual(rows);
      }),
      { numRuns: 500 },
    );
  });

  it("store a page's probe, one a tick, in a few bytes", () => {
    // 77 ms apart: a page's seven samples a second (docs/performance.md, a real tab's rate).
    const rows = Array.from({ length: 65 }, (_, i) => pageProbe(1000 + i, START + 1000 + 77 * i));
    const key = { session: 7, startMs: START, seq0: 1000 };
    const blob = encodeBlock(key, rows);
    expect(decodeBlock(key, blob)).toEqual(rows);
    // seq 1, t 1-2, series 1, status 1, presence 1, us 3, sched 1, late 3, hidden 1, lag 2, server 1.
    expect(blob.length / rows.length).toBeLessThanOrEqual(18);
    expect(blob.length / rows.length).toBeGreaterThan(10);
  });

  it("refuses rows it cannot hold: another session, (seq, t) not increasing, a key that is not the first seq, a fraction", () => {
    const key = { session: 7, startMs: START, seq0: 5 };
    const row = (seq: number, us: number | null = 1, t = START): PackedRow => [
      7,
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
      null,
    ];
    expect(() => encodeBlock(key, [])).toThrow(BlockRowError);
    expect(() => encodeBlock(key, [row(5), [8, 6, START, 1, 0, null, null, null, null, null, null, null]])).toThrow(
      /session 8/,
    );
    expect(() => encodeBlock(key, [row(5), row(5)])).toThrow(/must increase/);
    expect(() => encodeBlock(key, [row(5, 1, START + 9), row(5, 1, START + 3)])).toThrow(/must increase/);
    expect(() => encodeBlock({ ...key, seq0: 6 }, [row(6), row(5)])).toThrow(/must increase/);
    expect(decodeBlock(key, encodeBlock(key, [row(5), row(5, 2, START + 1)]))).toEqual([row(5), row(5, 2, START + 1)]);
    expect(() => encodeBlock(key, [row(6)])).toThrow(/not the key's/);
    expect(() => encodeBlock(key, [row(5, 1.5)])).toThrow(/us 1.5/);
  });

  it("reads a version 7 block (no stress field) as it was, and a stress field past the presence's seventh bit", () => {
    // A version 7 writer pushed the presence as one raw byte: below 128 it is the same varint.
    const key = { session: 7, startMs: START, seq0: 5 };
    const v7 = Uint8Array.from([BLOCK_FORMAT, 1, 0, 0, 1, 0, 0b0000001, 2]);
    expect(decodeBlock(key, v7)).toEqual([[7, 5, START, 1, 0, 1, null, null, null, null, null, null, null]]);
    // The stress field is bit 7: the presence is then two bytes.
    const stressed: PackedRow = [7, 5, START, 1, 0, 1, null, null, null, null, null, null, 3 * 8 + 2];
    const blob = encodeBlock(key, [stressed]);
    expect(Array.from(blob.subarray(6, 8))).toEqual([0x81, 0x01]);
    expect(decodeBlock(key, blob)).toEqual([stressed]);
  });

  it("refuses a damaged block instead of reading other samples from it", () => {
    const key = { session: 7, startMs: START, seq0: 1000 };
    const rows = Array.from({ length: 10 }, (_, i) => pageProbe(1000 + i, START + 77 * i));
    const blob = encodeBlock(key, rows);
    expect(() => decodeBlock(key, blob.subarray(0, blob.length - 1))).toThrow(BlockFormatError);
    expect(() => decodeBlock(key, Uint8Array.from([...blob, 0]))).toThrow(/after the last row/);
    expect(() => decodeBlock(key, Uint8Array.from([BLOCK_FORMAT + 1, ...blob.subarray(1)]))).toThrow(/format/);
    const badPresence = Uint8Array.from(
      encodeBlock(key, [[7, 1000, START, 1, 0, null, null, null, null, null, null, null]]),
    );
    badPresence[badPresence.length - 1] = 0x7f; // all seven columns present, none written
    expect(() => decodeBlock(key, badPresence)).toThrow(BlockFormatError);
  });

  it("splits a bucket's rows into blocks that stay on their page, and lose or reorder nothing", () => {
    fc.assert(
      fc.property(blockArb, fc.integer({ min: 40, max: 2000 }), ({ key, rows }, maxBytes) => {
        const blocks = splitIntoBlocks(key.session, key.startMs, rows, maxBytes);
        expect(blocks.flatMap((b) => b.rows)).toEqual(rows);
        for (const b of blocks) {
          expect(b.key).toEqual({ session: key.session, startMs: key.startMs, seq0: b.rows[0]![1] });
          const blob = encodeBlock(b.key, b.rows);
          expect(b.data).toEqual(blob);
          // Over the limit only a block of one seq's rows, which alone are larger.
          if (b.rows.some((r) => r[1] !== b.key.seq0)) expect(blob.length).toBeLessThanOrEqual(maxBytes);
          expect(decodeBlock(b.key, blob)).toEqual(b.rows);
        }
        // No two blocks share a seq, so none shares a key with another.
        const seqs = blocks.map((b) => [...new Set(b.rows.map((r) => r[1]))]);
        expect(new Set(seqs.flat()).size).toBe(seqs.flat().length);
      }),
      { numRuns: 300 },
    );
    // A page's 5 s report (65 samples, ~1.1 kB) is two blocks; 500 samples are several, each within the default.
    const page = Array.from({ length: 65 }, (_, i) => pageProbe(i, START + 77 * i));
    expect(splitIntoBlocks(7, START, page)).toHaveLength(2);
    const burst = Array.from({ length: 500 }, (_, i) => pageProbe(i, START + i));
    const blocks = splitIntoBlocks(7, START, burst);
    expect(blocks.length).toBeGreaterThan(5);
    for (const b of blocks) expect(encodeBlock(b.key, b.rows).length).toBeLessThanOrEqual(BLOCK_BYTES_MAX);
  });
});
