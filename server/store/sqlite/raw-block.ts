// Raw samples packed in blocks: the samples of one session in one 5-minute
// bucket that one write stored, as one BLOB. A row per sample spends ~13
// bytes of record header, 6 of t and 3 of seq, ~3 of cell and ~10 % of its
// page on slack before any latency is stored (35 bytes a sample on the month
// of docs/performance.md); in a block the session, bucket and first seq are
// the row's key, paid once, and each sample is a few varints: seq and t as
// steps from the sample before, the rest as they are.
//
// Layout (unsigned LEB128 varints, shared/varint.ts):
//   BLOCK_FORMAT, count
//   per sample, in (seq, t) order:
//     seq − previous seq           (the first sample's previous seq is seq0: 0)
//     zigzag(t − previous t)       (the first sample's previous t is the bucket's start)
//     series, status               (raw-layout.ts packRaw: never NULL, ≥ 0)
//     presence: bit k set when nullable column k is not NULL (a varint)
//     zigzag(value) per present nullable column, in NULLABLE order
// A sample is the logical row packRaw returns: PACKED_RAW_COLUMNS' order.
// A block's order is (seq, t), strictly increasing: a sample's identity is
// (session, seq) since schema version 8, but a file written before may hold
// one seq at two times (a page that re-sent it with a new t), kept as stored.
import { pushVarint, unzigzag, zigzag } from "../../../shared/varint.js";
import { bucketStartMs } from "../rollup-class.js";

/** The start of the block bucket holding t: the rollups' 5-minute level, so a range's partial edges cut at whole blocks. */
export const blockStartMs = (t: number): number => bucketStartMs(0, t);

/** The first byte of every block: the layout above. */
export const BLOCK_FORMAT = 1;

/** A sample in raw-layout.ts's packed layout: session, seq, t, series, status, then NULLABLE's columns. */
export type PackedRow = (number | null)[];

/**
 * The packed columns after status that may be NULL, in their PACKED_RAW_COLUMNS
 * order (index 5 on), then the stress test's (raw-layout.ts packStress, from
 * schema version 8: a version 7 reader refuses its presence bit).
 */
export const NULLABLE = ["us", "sched", "late_us", "hidden_us", "detail", "lag_us", "server_us", "stress"] as const;
const FIRST_NULLABLE = 5;

/** A block's key: what its rows share, stored as the table row's columns rather than in the BLOB. */
export interface BlockKey {
  session: number;
  /** The 5-minute bucket's start (epoch ms). */
  startMs: number;
  /** The block's first (smallest) seq. */
  seq0: number;
}

/** Rows a block cannot hold as given: the writer's contract is broken, so nothing is stored. */
export class BlockRowError extends Error {
  constructor(why: string) {
    super(`raw block: ${why}`);
    this.name = "BlockRowError";
  }
}

const isSafeInt = (v: number | null | undefined): v is number => typeof v === "number" && Number.isSafeInteger(v);

/**
 * A block's BLOB stays within this many bytes: SQLite keeps about 1,000 bytes
 * of a WITHOUT ROWID row on a 4,096-byte page, and spills the rest into an
 * overflow page of its own, mostly empty for a BLOB just past it (measured:
 * 72 bytes a sample for blocks of ~1.1 kB, 17.6 for blocks of ~8 kB).
 */
export const BLOCK_BYTES_MAX = 900;

/** Appends one row's varints, after the row (prevSeq, prevT); checks it as encodeBlock promises. */
function pushRow(out: number[], key: BlockKey, r: PackedRow, prevSeq: number, prevT: number, first: boolean): void {
  const [session, seq, t, series, status] = r;
  if (session !== key.session)
    throw new BlockRowError(`a row of session ${session} in a block of session ${key.session}`);
  if (!isSafeInt(t) || !isSafeInt(series) || series < 0 || !isSafeInt(status) || status < 0)
    throw new BlockRowError(`seq ${seq}: t, series or status`);
  if (!isSafeInt(seq) || seq < prevSeq || (!first && seq === prevSeq && t <= prevT))
    throw new BlockRowError(`(seq ${seq}, t ${t}) after (seq ${prevSeq}, t ${prevT}): (seq, t) must increase`);
  pushVarint(out, seq - prevSeq);
  pushVarint(out, zigzag(t - prevT));
  pushVarint(out, series);
  pushVarint(out, status);
  let presence = 0;
  for (let k = 0; k < NULLABLE.length; k++) {
    const v = r[FIRST_NULLABLE + k];
    if (v === null || v === undefined) continue;
    if (!isSafeInt(v) || Math.abs(v) > Number.MAX_SAFE_INTEGER / 2)
      throw new BlockRowError(`seq ${seq}: ${NULLABLE[k]} ${v} is not an integer within ±2^52`);
    presence |= 1 << k;
  }
  // A varint: one byte, as before version 8, while the presence is below 128.
  pushVarint(out, presence);
  for (let k = 0; k < NULLABLE.length; k++)
    if ((presence >> k) & 1) pushVarint(out, zigzag(r[FIRST_NULLABLE + k] as number));
}

/**
 * Packs `rows` (one session's, (seq, t) strictly increasing, every value an
 * integer) into a block under `key` (key.seq0 must be the first row's seq).
 */
export function encodeBlock(key: BlockKey, rows: readonly PackedRow[]): Uint8Array {
  if (rows.length === 0) throw new BlockRowError("no rows");
  if (rows[0]![1] !== key.seq0)
    throw new BlockRowError(`the first row's seq ${rows[0]![1]} is not the key's ${key.seq0}`);
  // One block however large: the writer's path, splitIntoBlocks, without its limit.
  return splitIntoBlocks(key.session, key.startMs, rows, Number.POSITIVE_INFINITY)[0]!.data;
}

/**
 * `rows` (as encodeBlock takes them, one bucket's) as consecutive runs whose
 * blocks stay within maxBytes (a single row, or the rows of one seq, that
 * alone are larger get a block of their own), each with its key and its
 * encoded block (what encodeBlock returns: measuring a row is encoding it).
 */
export function splitIntoBlocks(
  session: number,
  startMs: number,
  rows: readonly PackedRow[],
  maxBytes = BLOCK_BYTES_MAX,
): { key: BlockKey; rows: PackedRow[]; data: Uint8Array }[] {
  const runs: { key: BlockKey; rows: PackedRow[]; data: Uint8Array }[] = [];
  // The format byte and a count of up to 16,383 samples.
  const HEADER_BYTES_MAX = 3;
  let run: PackedRow[] = [];
  let body: number[] = [];
  const scratch: number[] = [];
  const close = () => {
    const key = { session, startMs, seq0: run[0]![1]! };
    const head = [BLOCK_FORMAT];
    pushVarint(head, run.length);
    const data = new Uint8Array(head.length + body.length);
    data.set(head);
    data.set(body, head.length);
    runs.push({ key, rows: run, data });
    run = [];
    body = [];
  };
  /** Encodes rows[i, j) into scratch: after the run's last row, or as a new block's first rows. */
  const measure = (i: number, j: number, continuing: boolean): void => {
    scratch.length = 0;
    const key = { session, startMs, seq0: continuing ? run[0]![1]! : rows[i]![1]! };
    let prev = continuing ? run[run.length - 1] : undefined;
    for (let k = i; k < j; k++) {
      const r = rows[k]!;
      pushRow(
        scratch,
        key,
        r,
        prev === undefined ? key.seq0 : prev[1]!,
        prev === undefined ? startMs : prev[2]!,
        prev === undefined,
      );
      prev = r;
    }
  };
  // Rows of one seq (stored at two times) go into one block together: each
  // block's seq0 is then a seq no other block of the split holds.
  for (let i = 0; i < rows.length; ) {
    let j = i + 1;
    while (j < rows.length && rows[j]![1] === rows[i]![1]) j++;
    measure(i, j, run.length > 0);
    if (run.length > 0 && HEADER_BYTES_MAX + body.length + scratch.length > maxBytes) {
      close();
      // Encoded again as first rows: their steps are then from the new block's start.
      measure(i, j, false);
    }
    for (let k = i; k < j; k++) run.push(rows[k]!);
    for (const byte of scratch) body.push(byte);
    i = j;
  }
  if (run.length > 0) close();
  return runs;
}

/** A block that does not decode: the file is damaged or was written by another format. */
export class BlockFormatError extends Error {
  constructor(key: BlockKey, why: string) {
    super(`raw block (session ${key.session}, bucket ${key.startMs}, seq ${key.seq0}): ${why}`);
    this.name = "BlockFormatError";
  }
}

/** The block's rows, in (seq, t) order, each in PACKED_RAW_COLUMNS' order. */
export function decodeBlock(key: BlockKey, blob: Uint8Array): PackedRow[] {
  let pos = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = blob[pos++];
      if (b === undefined) throw new BlockFormatError(key, "truncated");
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  };
  if (varint() !== BLOCK_FORMAT) throw new BlockFormatError(key, `format ${blob[0]} is not ${BLOCK_FORMAT}`);
  const n = varint();
  const rows: PackedRow[] = new Array(n);
  let seq = key.seq0;
  let t = key.startMs;
  for (let i = 0; i < n; i++) {
    seq += varint();
    t += unzigzag(varint());
    const row: PackedRow = [key.session, seq, t, varint(), varint(), null, null, null, null, null, null, null, null];
    const presence = varint();
    if (presence >> NULLABLE.length !== 0) throw new BlockFormatError(key, `presence ${presence} names no column`);
    for (let k = 0; k < NULLABLE.length; k++) if ((presence >> k) & 1) row[FIRST_NULLABLE + k] = unzigzag(varint());
    rows[i] = row;
  }
  if (pos !== blob.length) throw new BlockFormatError(key, `${blob.length - pos} bytes after the last row`);
  return rows;
}
