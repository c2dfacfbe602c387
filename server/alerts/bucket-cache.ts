// Keeps the rollups of settled 5-minute buckets between evaluation cycles, so
// a cycle reads only the few recent buckets that can still change (and a
// relative rule's baseline, a day back, is read once per bucket, not once
// per cycle).
import type { BucketRow, BucketRows } from "../query/alert-window.js";
import { bucketStartMs } from "../store/rollup-class.js";
import { WINDOW_STEP_MS } from "./rule.js";

/**
 * A bucket that ended this long ago (ms) is taken as settled: pages report
 * every 5 s and retry within seconds, so its rows no longer change. A backlog
 * delivered later (a tab that was offline) is seen by queries, not by the
 * alerts, which judge the present: re-reading older buckets every cycle was
 * most of a cycle's reading.
 */
export const SETTLE_MS = 2 * 60_000;

export type ReadBuckets = (fromMs: number, toMs: number) => Promise<BucketRows>;

export class BucketCache {
  private readonly settled = new Map<number, BucketRow[]>();
  /** Bucket reads done (tests and the benchmark count them). */
  reads = 0;

  constructor(
    private readonly readRange: ReadBuckets,
    private readonly nowMs: () => number,
  ) {}

  /** The rows of every bucket overlapping [fromMs, toMs]: settled ones from the cache, the rest read now. */
  async read(fromMs: number, toMs: number): Promise<BucketRows> {
    const now = this.nowMs();
    const out: BucketRows = new Map();
    let missFrom: number | null = null;
    const flush = async (endMs: number) => {
      if (missFrom === null) return;
      this.reads++;
      const rows = await this.readRange(missFrom, endMs);
      for (let start = missFrom; start < endMs; start += WINDOW_STEP_MS) {
        const r = rows.get(start) ?? [];
        out.set(start, r);
        if (start + WINDOW_STEP_MS + SETTLE_MS <= now) this.settled.set(start, r);
      }
      missFrom = null;
    };
    const last = bucketStartMs(0, toMs);
    for (let start = bucketStartMs(0, fromMs); start <= last; start += WINDOW_STEP_MS) {
      const hit = this.settled.get(start);
      if (hit === undefined) {
        missFrom ??= start;
        continue;
      }
      await flush(start);
      out.set(start, hit);
    }
    await flush(last + WINDOW_STEP_MS);
    return out;
  }

  /** Forgets buckets that started before fromMs (no rule looks that far back any more). */
  evictBefore(fromMs: number): void {
    for (const start of this.settled.keys()) if (start < fromMs) this.settled.delete(start);
  }
}
