// 5-minute cells the change finder has read, kept between requests an hour
// at a time. An hour's 5-minute rows and its hour row are written in the
// same transaction from the same samples, and rollups only grow, so while
// the hour cell (kept current by the HourCache) holds as many values as the
// cached 5-minute cells of that hour, none of them changed; the newest hour,
// still filling, is read again whenever it grew.
import type { Cell } from "../../shared/changes/cells.js";

/** Bytes the cache may hold; the least recently used hours go first beyond it. */
export const FINE_CACHE_BYTES_MAX = 32 * 1024 * 1024;

interface Hour {
  cells: Cell[];
  count: number;
  bytes: number;
}

const bytesOf = (cells: readonly Cell[]) => cells.reduce((s, c) => s + 64 + c.bins.length * 10, 64);

export class FineCache {
  /** By "key|hour start", in least-recently-used order (a Map iterates in insertion order). */
  private readonly hours = new Map<string, Hour>();
  private bytes = 0;

  constructor(private readonly bytesMax = FINE_CACHE_BYTES_MAX) {}

  /** An hour's 5-minute cells if cached and still holding `count` values (its hour cell's), else null. */
  get(key: string, hourMs: number, count: number): Cell[] | null {
    const name = `${key}|${hourMs}`;
    const h = this.hours.get(name);
    if (h === undefined) return null;
    this.hours.delete(name);
    if (h.count !== count) {
      this.bytes -= h.bytes;
      return null;
    }
    this.hours.set(name, h);
    return h.cells;
  }

  set(key: string, hourMs: number, cells: Cell[]): void {
    const name = `${key}|${hourMs}`;
    const old = this.hours.get(name);
    if (old !== undefined) {
      this.bytes -= old.bytes;
      this.hours.delete(name);
    }
    const h = { cells, count: cells.reduce((s, c) => s + c.count, 0), bytes: bytesOf(cells) };
    this.hours.set(name, h);
    this.bytes += h.bytes;
    for (const [oldest, x] of this.hours) {
      if (this.bytes <= this.bytesMax) break;
      this.bytes -= x.bytes;
      this.hours.delete(oldest);
    }
  }
}
