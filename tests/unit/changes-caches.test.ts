// The change finder's caches: hour cells kept while the rollups' running
// total agrees with them (and read whole when a backlog lands in them), and
// 5-minute cells kept an hour at a time while their hour's count agrees;
// both bounded in bytes, the least recently used going first.
import { describe, expect, it } from "vitest";
import { FineCache } from "../../server/changes/fine-cache.js";
import { HourCache, viewCells } from "../../server/changes/hour-cache.js";
import type { Cell } from "../../shared/changes/cells.js";

const HOUR_MS = 3_600_000;
const cell = (startMs: number, count: number): Cell => ({
  startMs,
  count,
  bins: Uint16Array.from([100]),
  counts: Float64Array.from([count]),
});
/** A key's generation and fresh hours, as a request's view of it says. */
const stateOf = (c: HourCache, key: string) => {
  const v = c.view(key);
  return v === null ? null : { generation: v.generation, freshFromMs: v.freshFromMs };
};
const hours = (from: number, counts: number[]) => counts.map((n, i) => cell(from + i * HOUR_MS, n));

describe("HourCache", () => {
  it("keeps a key's hours while its total agrees, reads again from its fresh hours", () => {
    const c = new HourCache();
    expect(c.readFrom("k", 0)).toBeNull();
    // Whole read from 0: hours 0–2, 5 samples before (pruned or older), the newest hour still filling.
    expect(c.update("k", 0, { cells: hours(0, [10, 20, 30]), total: 65 }, true, 2 * HOUR_MS)).toBe(true);
    expect(c.readFrom("k", 0)).toBe(2 * HOUR_MS);
    expect(c.readFrom("k", -1)).toBeNull();
    const g = stateOf(c, "k")!.generation;
    // Hour 2 grew by 5 and hour 3 began with 7: the total says nothing else changed.
    expect(c.update("k", 2 * HOUR_MS, { cells: hours(2 * HOUR_MS, [35, 7]), total: 77 }, false, 3 * HOUR_MS)).toBe(
      true,
    );
    expect(viewCells(c.view("k")!, 0, 10 * HOUR_MS).map((x) => x.count)).toEqual([10, 20, 35, 7]);
    expect(stateOf(c, "k")).toEqual({ generation: g, freshFromMs: 3 * HOUR_MS });
    // A backlog of 4 samples into hour 1: the total is 4 more than the hours read account for.
    expect(c.update("k", 3 * HOUR_MS, { cells: hours(3 * HOUR_MS, [7]), total: 81 }, false, 3 * HOUR_MS)).toBe(false);
    expect(stateOf(c, "k")).toBeNull();
    expect(c.readFrom("k", 0)).toBeNull();
    // Read whole again: a new generation.
    expect(c.update("k", 0, { cells: hours(0, [10, 24, 35, 7]), total: 81 }, true, 3 * HOUR_MS)).toBe(true);
    expect(stateOf(c, "k")!.generation).toBeGreaterThan(g);
  });

  it("a key with no data yet is checked by its total alone, from the fresh hours of the others", () => {
    const c = new HourCache();
    c.update("empty", 0, { cells: [], total: 0 }, true, 5 * HOUR_MS);
    expect(c.readFrom("empty", 0)).toBe(5 * HOUR_MS);
    expect(c.update("empty", 5 * HOUR_MS, { cells: [], total: 0 }, false, 5 * HOUR_MS)).toBe(true);
    // Its first samples land in a fresh hour: fine; in an older one: read whole.
    expect(c.update("empty", 5 * HOUR_MS, { cells: hours(5 * HOUR_MS, [3]), total: 3 }, false, 5 * HOUR_MS)).toBe(true);
    expect(c.update("empty", 5 * HOUR_MS, { cells: hours(5 * HOUR_MS, [3]), total: 9 }, false, 5 * HOUR_MS)).toBe(
      false,
    );
  });

  it("stays within its bytes, dropping the least recently used keys", () => {
    const c = new HourCache(3000);
    for (const k of ["a", "b", "c"]) c.update(k, 0, { cells: hours(0, Array(12).fill(1)), total: 12 }, true, 0);
    // Each key is ~12 × 74 bytes; three do not fit 3000 with "a" read last.
    expect(viewCells(c.view("a")!, 0, Infinity)).toHaveLength(12);
    c.update("d", 0, { cells: hours(0, Array(12).fill(1)), total: 12 }, true, 0);
    expect(stateOf(c, "a")).not.toBeNull();
    expect(stateOf(c, "b")).toBeNull();
    expect(c.size).toBeLessThanOrEqual(3);
  });
});

describe("FineCache", () => {
  it("gives an hour's cells back while the hour's count is theirs, and forgets them when it grew", () => {
    const c = new FineCache();
    const five = [cell(0, 4), cell(300_000, 6)];
    c.set("k", 0, five);
    expect(c.get("k", 0, 10)).toBe(five);
    expect(c.get("k", 0, 11)).toBeNull();
    expect(c.get("k", 0, 10)).toBeNull();
    expect(c.get("other", 0, 10)).toBeNull();
  });

  it("stays within its bytes", () => {
    const c = new FineCache(1000);
    for (let h = 0; h < 20; h++) c.set("k", h * HOUR_MS, [cell(h * HOUR_MS, 1)]);
    expect(c.get("k", 0, 1)).toBeNull();
    expect(c.get("k", 19 * HOUR_MS, 1)).not.toBeNull();
  });
});
