// Turning merged rollup cells into the numbers the endpoints answer with:
// the latency population a filter asks for, in ms, and its log bins.
import { logBin } from "../../shared/contract/index.js";
import { methodOrder } from "../../shared/methods.js";
import { bucketValue, emptyRollup, mergeInto, quantile, quantiles, type Rollup } from "../../shared/rollup.js";
import { mergeCell, type RollupCell } from "../store/rollup-batch.js";
import type { Merged, SeriesInfo } from "./reader.js";

export const US_PER_MS = 1000;
export const msOf = (us: number | null): number | null => (us === null ? null : us / US_PER_MS);

/** The latency population: ok samples, plus timeouts at their value when timeouts=1. */
export function tailOf(c: RollupCell, timeoutsInTail: boolean): Rollup {
  if (!timeoutsInTail || c.tmo.count === 0) return c.lat;
  const r = emptyRollup();
  mergeInto(r, c.lat);
  mergeInto(r, c.tmo);
  return r;
}

/** Nearest-rank percentile p in ms, within ±1 % (shared/rollup.ts). */
export const percentileMs = (r: Rollup, p: number): number | null => msOf(quantile(r, p));

/** Several percentiles in ms from one pass (quantiles in shared/rollup.ts). */
export const percentilesMs = (r: Rollup, ps: readonly number[]): (number | null)[] => quantiles(r, ps).map(msOf);

/** Series in the table's order: by target, then method. */
export function sortedSeries(m: Merged): { series: SeriesInfo; buckets: Map<number, RollupCell> }[] {
  return [...m.values()].sort(
    (a, b) =>
      a.series.target.localeCompare(b.series.target) ||
      methodOrder(a.series.method) - methodOrder(b.series.method) ||
      a.series.method.localeCompare(b.series.method),
  );
}

/** One cell per series over every bucket. */
export function mergedCell(buckets: Map<number, RollupCell>): RollupCell {
  const cells = [...buckets.values()];
  if (cells.length === 1) return cells[0]!;
  const out = cells[0]!;
  for (const c of cells.slice(1)) mergeCell(out, c);
  return out;
}

/**
 * Counts per log bin (charts.ts logBin). Each rollup bucket goes to the bin
 * of its representative value: a bucket (0.54 % wide) that straddles a bin
 * edge puts all its samples on one side, the only approximation here.
 */
export function logBinCounts(r: Rollup, binsPerDecade: number, add: (bin: number, count: number) => void): void {
  if (r.zero > 0) add(logBin(0, binsPerDecade), r.zero);
  for (const [i, c] of r.buckets) {
    const us = Math.min(r.max!, Math.max(r.min!, bucketValue(i)));
    add(logBin(us / US_PER_MS, binsPerDecade), c);
  }
}
