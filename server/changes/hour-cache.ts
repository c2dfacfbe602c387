// Hour cells the change finder has read, kept between requests: a month of
// every client's hours is ~100,000 rollup rows, read once rather than on
// every /api/changes. What keeps them true: each read also reads the series'
// running total (the rollups' total level, kept in the same transaction as
// every hour row), and the total must equal what the cache holds plus what
// lies outside it. A sample that arrived late into a cached hour (an outbox
// delivering hours of backlog) breaks the sum, and the key is read afresh.
import type { Cell } from "../../shared/changes/cells.js";

/** Bytes the cache may hold; the least recently used keys go first beyond it. */
export const HOUR_CACHE_BYTES_MAX = 64 * 1024 * 1024;

interface Entry {
  /** Hour cells ascending, from fromMs to the newest (a read always runs to the end of the data). */
  cells: Cell[];
  fromMs: number;
  /** Hours from here on are read again by every request (the newest hour is still filling). */
  freshFromMs: number;
  /** Samples of the key before fromMs: total − cells. */
  outside: number;
  bytes: number;
  usedAt: number;
  /** Changes whenever the key is read whole: results computed from its cells are stale then. */
  generation: number;
}

export interface HourRead {
  /** Hour cells read, ascending. */
  cells: Cell[];
  /** The running total read in the same statement (values in the lat histograms). */
  total: number;
}

const bytesOf = (c: Cell) => 64 + c.bins.length * 10;

export class HourCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private clock = 0;
  private generations = 0;

  constructor(private readonly bytesMax = HOUR_CACHE_BYTES_MAX) {}

  /**
   * Where a key must be read from (to the end of its data) to answer from
   * `fromMs` on: its fresh hours when the cache covers the rest, null when
   * it must be read whole.
   */
  readFrom(key: string, fromMs: number): number | null {
    const e = this.entries.get(key);
    if (e === undefined || e.fromMs > fromMs) return null;
    return e.freshFromMs;
  }

  /**
   * Folds in a read of every hour from readFromMs on, with the total from the
   * same snapshot. Returns false, and forgets the key, when the total says
   * cached hours changed since they were read (the caller reads it whole again).
   * `freshFromMs`: from here on hours are read again by the next request: the
   * newest hour of the read (of any key read with it), still filling. A key
   * whose data stopped before it is checked by its total alone, so one client
   * gone for weeks does not make every request read those weeks again.
   */
  update(key: string, readFromMs: number, read: HourRead, whole: boolean, freshFromMs: number): boolean {
    const e = this.entries.get(key);
    let readSum = 0;
    for (const c of read.cells) readSum += c.count;
    if (whole || e === undefined) {
      if (e !== undefined) this.drop(key);
      const cells = [...read.cells];
      const entry: Entry = {
        cells,
        fromMs: readFromMs,
        freshFromMs: Math.max(readFromMs, freshFromMs),
        outside: read.total - readSum,
        bytes: 0,
        usedAt: ++this.clock,
        generation: ++this.generations,
      };
      this.entries.set(key, entry);
      this.account(entry);
      return true;
    }
    const keep = firstAtOrAfter(e.cells, readFromMs);
    let kept = 0;
    for (let i = 0; i < keep; i++) kept += e.cells[i]!.count;
    if (read.total - e.outside - kept !== readSum) {
      this.drop(key);
      return false;
    }
    e.cells = [...e.cells.slice(0, keep), ...read.cells];
    e.freshFromMs = Math.max(readFromMs, freshFromMs);
    e.usedAt = ++this.clock;
    this.account(e);
    return true;
  }

  /**
   * A key's entry as it stands: its cells array is replaced, never changed in
   * place, so a request that keeps it reads one snapshot to its end even when
   * another request reads the key again (or it is evicted) meanwhile.
   */
  view(key: string): HourView | null {
    const e = this.entries.get(key);
    if (e === undefined) return null;
    e.usedAt = ++this.clock;
    return { cells: e.cells, fromMs: e.fromMs, freshFromMs: e.freshFromMs, generation: e.generation };
  }

  get size(): number {
    return this.entries.size;
  }

  private account(e: Entry): void {
    this.bytes -= e.bytes;
    e.bytes = 0;
    for (const c of e.cells) e.bytes += bytesOf(c);
    this.bytes += e.bytes;
    while (this.bytes > this.bytesMax && this.entries.size > 1) {
      let oldest: string | null = null;
      let at = Infinity;
      for (const [k, x] of this.entries)
        if (x !== e && x.usedAt < at) {
          at = x.usedAt;
          oldest = k;
        }
      if (oldest === null) break;
      this.drop(oldest);
    }
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.bytes -= e.bytes;
    this.entries.delete(key);
  }
}

/** One key's cached hours at one moment (HourCache.view). */
export interface HourView {
  readonly cells: readonly Cell[];
  /** Nothing before it is known. */
  readonly fromMs: number;
  /** From here on hours are read again by every request; before it cells change only with a new generation. */
  readonly freshFromMs: number;
  /** A new one whenever the key is read whole: results computed from its cells depend on it. */
  readonly generation: number;
}

/** The cells of a view in [fromMs, toMs), ascending. */
export function viewCells(v: HourView | undefined, fromMs: number, toMs: number): Cell[] {
  if (v === undefined) return [];
  return v.cells.slice(firstAtOrAfter(v.cells, fromMs), firstAtOrAfter(v.cells, toMs));
}

/** Index of the first cell starting at or after t (cells ascend). */
function firstAtOrAfter(cells: readonly Cell[], t: number): number {
  let a = 0;
  let b = cells.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (cells[m]!.startMs < t) a = m + 1;
    else b = m;
  }
  return a;
}
