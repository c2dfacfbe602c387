// What the change detector reads: one coarse latency histogram per time
// bucket (a "cell": a 5-minute or hour rollup of one series, or of one
// client's share of it), built from the store's rollups (shared/rollup.ts)
// and never from raw samples.
//
// Coarse bins: the rollups' scale-7 buckets (0.54 % wide) eight at a time,
// 16 bins per doubling (4.4 % wide). A quantile is interpolated within its
// bin on the log scale, so it is within ~2 % of the rollup's: far finer than
// the 20 % and 30 % shifts the detector looks for, and eight times fewer
// bins to add up for every window it compares.
import { bucketIndex, type Rollup } from "../rollup.js";
import { decodeInto, type BucketSink } from "../rollup-codec.js";

/** Coarse bins per doubling of latency. */
export const COARSE_STEPS = 16;
/** Rollup buckets per coarse bin, as a shift: 2^3 = 8 (rollup scale 7 → 4). */
const COARSE_SHIFT = 3;
/** Coarse bins in a dense accumulator: bin 512 ends at 2^32 µs (71 minutes), past any timeout; later values share the last bin. */
export const COARSE_BINS = 513;

/** Coarse bin of rollup bucket i (i ≥ −1): bin k holds values in (2^((k−1)/16), 2^(k/16)] µs; bin 0 also 0 µs. */
export const coarseOfBucket = (i: number): number => Math.min(COARSE_BINS - 1, Math.max(0, (i + 8) >> COARSE_SHIFT));

/** Coarse bin of a value in µs. */
export const coarseOfValue = (us: number): number => (us <= 1 ? 0 : coarseOfBucket(bucketIndex(us)));

/** Upper edge of coarse bin k (µs). */
export const coarseUpper = (k: number): number => 2 ** (k / COARSE_STEPS);

/** One time bucket's latencies: count and a sparse coarse histogram, bins ascending. */
export interface Cell {
  /** Start of the bucket (epoch ms). */
  startMs: number;
  count: number;
  bins: Uint16Array;
  counts: Float64Array;
}

/** A series' cells of one width, ascending, empty buckets left out (a hidden tab, a machine asleep). */
export interface CellSeries {
  cellMs: number;
  cells: Cell[];
}

/** Accumulates rollups (decoded or stored) into one cell. */
export class CellBuilder implements BucketSink {
  private readonly dense = new Float64Array(COARSE_BINS);
  private lo = COARSE_BINS;
  private hi = -1;
  /** The exact fields decodeInto adds to (only zero is read). */
  private readonly exact = { count: 0, sum: 0, zero: 0, min: null as number | null, max: null as number | null };

  add(index: number, n: number): void {
    const k = coarseOfBucket(index);
    this.dense[k]! += n;
    if (k < this.lo) this.lo = k;
    if (k > this.hi) this.hi = k;
  }

  /** Adds a stored rollup (shared/rollup.ts encoding). */
  addEncoded(blob: Uint8Array): void {
    decodeInto(blob, this.exact, this);
  }

  addRollup(r: Rollup): void {
    this.exact.zero += r.zero;
    for (const [i, c] of r.buckets) this.add(i, c);
  }

  addCell(c: Cell): void {
    for (let j = 0; j < c.bins.length; j++) this.addBin(c.bins[j]!, c.counts[j]!);
  }

  addBin(k: number, n: number): void {
    this.dense[k]! += n;
    if (k < this.lo) this.lo = k;
    if (k > this.hi) this.hi = k;
  }

  /** The cell, or null when nothing was added; the builder is empty again afterwards. */
  take(startMs: number): Cell | null {
    if (this.exact.zero > 0) this.addBin(0, this.exact.zero);
    this.exact.zero = 0;
    if (this.hi < 0) return null;
    let n = 0;
    for (let k = this.lo; k <= this.hi; k++) if (this.dense[k] !== 0) n++;
    const bins = new Uint16Array(n);
    const counts = new Float64Array(n);
    let count = 0;
    let j = 0;
    for (let k = this.lo; k <= this.hi; k++) {
      const c = this.dense[k]!;
      if (c === 0) continue;
      bins[j] = k;
      counts[j++] = c;
      count += c;
      this.dense[k] = 0;
    }
    this.lo = COARSE_BINS;
    this.hi = -1;
    return { startMs, count, bins, counts };
  }
}

/** Cells of a finer width merged into cells of `cellMs` (e.g. 5-minute cells into hours), aligned to epoch multiples. */
export function coarsen(series: CellSeries, cellMs: number): CellSeries {
  const out: Cell[] = [];
  const b = new CellBuilder();
  let current: number | null = null;
  for (const c of series.cells) {
    const start = c.startMs - (c.startMs % cellMs);
    if (current !== null && start !== current) {
      const merged = b.take(current);
      if (merged !== null) out.push(merged);
    }
    current = start;
    b.addCell(c);
  }
  if (current !== null) {
    const merged = b.take(current);
    if (merged !== null) out.push(merged);
  }
  return { cellMs, cells: out };
}

/** The cells of a series whose buckets lie wholly in [fromMs, toMs). */
export function cellsWithin(series: CellSeries, fromMs: number, toMs: number): CellSeries {
  return {
    cellMs: series.cellMs,
    cells: series.cells.filter((c) => c.startMs >= fromMs && c.startMs + series.cellMs <= toMs),
  };
}
