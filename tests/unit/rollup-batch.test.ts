// RollupBatch.add records each sample once, into a staged cell of its
// 5-minute bucket, and rolls the staged cells up into every level and the
// aggregate when the cells are read (keys past the packed range go straight
// in); it must give the same cells as recording every sample into each of its
// cells one by one, the plain way, before and after merging batches.
import { describe, expect, it } from "vitest";
import {
  ANY_CLASS,
  ANY_CLIENT,
  addToCell,
  emptyCell,
  RollupBatch,
  type RollupCell,
  type RollupRow,
} from "../../server/store/rollup-batch.js";
import { bucketEndMs, LEVEL_MS, TOTAL_LEVEL } from "../../server/store/rollup-class.js";
import { record } from "../../shared/rollup.js";
import { mulberry32 } from "../../shared/prng.js";

const T0 = Date.UTC(2026, 10, 1);

/** The plain way: every cell a row belongs to, found by string key, each value bucketed again. */
function plain(rows: readonly RollupRow[]): Map<string, RollupCell> {
  const cells = new Map<string, RollupCell>();
  const cell = (level: number, startMs: number, series: number, client: number, cls: number) => {
    const key = `${level}|${startMs}|${series}|${client}|${cls}`;
    let c = cells.get(key);
    if (c === undefined) cells.set(key, (c = emptyCell(level, startMs, series, client, cls)));
    return c;
  };
  // Each timed level's bucket, and the total level's one cell (start 0) per series, client and class.
  for (const r of rows)
    for (let level = 0; level <= LEVEL_MS.length; level++) {
      const startMs = level === LEVEL_MS.length ? 0 : r.t - (r.t % LEVEL_MS[level]!);
      for (const [client, cls] of [
        [r.client, r.cls],
        [ANY_CLIENT, ANY_CLASS],
      ] as const) {
        addToCell(cell(level, startMs, r.series, client, cls), r);
        if (r.minrttSeries !== null && r.minrttUs !== null)
          record(cell(level, startMs, r.minrttSeries, client, cls).lat, r.minrttUs);
      }
    }
  return cells;
}

function rows(n: number, seed: number): RollupRow[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, (): RollupRow => {
    const outcome = rand() < 0.9 ? 0 : Math.floor(rand() * 4);
    const series = 1 + Math.floor(rand() * 13);
    const us = outcome === 2 || outcome === 3 ? null : rand() < 0.02 ? 0 : Math.round(Math.exp(rand() * 14));
    const best2 = series === 7 && outcome === 0 && us !== null;
    const tcp = series === 12 && rand() < 0.8;
    return {
      t: T0 + Math.floor(rand() * 3 * 86_400_000),
      series,
      // Large client ids and classes past the packed range take the string path.
      client: rand() < 0.05 ? 2 ** 33 + 1 : 1 + Math.floor(rand() * 4),
      cls: rand() < 0.05 ? 300 : Math.floor(rand() * 48),
      outcome,
      us,
      winner: best2 ? (rand() < 0.5 ? 0 : 1) : null,
      otherUs: best2 && rand() < 0.9 ? us! + Math.round(rand() * 5000) : null,
      minrttSeries: tcp ? 14 : null,
      minrttUs: tcp ? Math.round(rand() * 900) : null,
      // Probes report the server's handler time (kept in the srv histogram of ok ones).
      serverUs: series <= 3 && rand() < 0.9 ? Math.round(rand() * 3000) : null,
    };
  });
}

describe("RollupBatch", () => {
  it("add gives the same cells as recording each sample into each of its cells the plain way", () => {
    const input = rows(20_000, 7);
    const batch = new RollupBatch();
    for (const r of input) batch.add(r);
    const want = plain(input);
    expect(batch.cells.size).toBe(want.size);
    for (const [key, c] of want) expect(batch.cells.get(key), key).toEqual(c);
  });

  it("merging two batches equals one batch of both, and takeClosed moves exactly the ended buckets", () => {
    const a = rows(5000, 11);
    const b = rows(5000, 12);
    const left = new RollupBatch();
    for (const r of a) left.add(r);
    const right = new RollupBatch();
    for (const r of b) right.add(r);
    left.mergeFrom(right);
    // Samples added after a merge still find the merged cells, not fresh ones.
    // One sample certain to sit in a bucket takeClosed will take (below).
    const early: RollupRow = {
      t: T0 + 500,
      series: 1,
      client: 1,
      cls: 0,
      outcome: 0,
      us: 999,
      winner: null,
      otherUs: null,
      minrttSeries: null,
      minrttUs: null,
      serverUs: null,
    };
    const more = [...rows(2000, 13), early];
    for (const r of more) left.add(r);
    const want = plain([...a, ...b, ...more]);
    expect(left.cells.size).toBe(want.size);
    for (const [key, c] of want) expect(left.cells.get(key), key).toEqual(c);

    const watermark = T0 + 86_400_000;
    const closed = left.takeClosed(watermark);
    for (const c of closed.cells.values()) expect(c.startMs + LEVEL_MS[c.level]!).toBeLessThanOrEqual(watermark);
    for (const c of left.cells.values()) expect(bucketEndMs(c.level, c.startMs)).toBeGreaterThan(watermark);
    expect(closed.cells.size + left.cells.size).toBe(want.size);
    // The running totals never close: they stay open until finish() writes them.
    expect([...closed.cells.values()].some((c) => c.level === TOTAL_LEVEL)).toBe(false);
    expect(
      [...left.cells.values()].filter((c) => c.level === TOTAL_LEVEL && c.client === ANY_CLIENT).length,
    ).toBeGreaterThan(0);
    // A sample in a taken bucket starts a fresh cell, leaving the taken one as it was.
    const late: RollupRow = {
      t: T0 + 1000,
      series: 1,
      client: 1,
      cls: 0,
      outcome: 0,
      us: 1234,
      winner: null,
      otherUs: null,
      minrttSeries: null,
      minrttUs: null,
      serverUs: null,
    };
    const takenBefore = structuredClone(closed.cells.get(`0|${T0}|1|1|0`));
    expect(takenBefore?.lat.count).toBeGreaterThan(0);
    left.add(late);
    expect(left.cells.get(`0|${T0}|1|1|0`)!.lat.count).toBe(1);
    expect(closed.cells.get(`0|${T0}|1|1|0`)).toEqual(takenBefore);
  });
});
