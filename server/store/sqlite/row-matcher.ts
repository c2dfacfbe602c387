// sampleWhere (../sample-filter.ts) in JavaScript, on packed rows: SQLite's
// raw samples are in blocks that SQL cannot filter, so its readers keep the
// rows this predicate keeps (tests/unit/raw-rows.test.ts holds the two to
// one verdict over generated rows and filters).
import { FLAG, FLAG_KNOWN_SHIFT } from "../flags.js";
import { storedMethodOf, type SampleFilter } from "../sample-filter.js";
import type { PackedRow } from "./raw-block.js";
import { PACKED_STRESS_INDEX, unpackSample, unpackStress } from "./raw-layout.js";

/**
 * What a filter needs to know of a row beyond the row: its series' method and
 * target, its session's client, and the code of the stress run the filter
 * names (looked up once: stressRunCodeOf).
 */
export interface RowContext {
  seriesOf(id: number): { method: string; target: string } | undefined;
  clientIdOf(session: number): string | undefined;
  /** The code of filter.stressRun's run; null when no run has that key (the filter keeps nothing). */
  stressRunCode?: number | null | undefined;
}

const VISIBLE_BITS = FLAG.visibleAtSend | FLAG.visibleAtReply;

/**
 * sampleWhere (sample-filter.ts) as a predicate on packed rows: the same
 * rows, condition by condition (tests/unit/raw-rows.test.ts holds the two
 * to one verdict over generated rows and filters).
 */
export function rowMatcher(f: SampleFilter, ctx: RowContext): (row: PackedRow) => boolean {
  const fromMs = Math.ceil(f.fromMs);
  const toMs = Math.floor(f.toMs);
  const methods = f.methods !== undefined && f.methods.length > 0 ? new Set(f.methods.map(storedMethodOf)) : null;
  const targets = f.targets !== undefined && f.targets.length > 0 ? new Set(f.targets) : null;
  const exclude = (f.exclude ?? []).map((w) => [Math.ceil(w.fromMs), Math.floor(w.toMs)] as const);
  const loads = f.loads !== undefined && f.loads.length > 0 ? new Set(f.loads) : null;
  return (row) => {
    const [session, , t, seriesId, status, , sched, lateUs, , detail] = row;
    if (t! < fromMs || t! > toMs) return false;
    if (f.clientId !== undefined && ctx.clientIdOf(session!) !== f.clientId) return false;
    const series = ctx.seriesOf(seriesId!);
    if (series === undefined) return false;
    if (methods !== null && !methods.has(series.method)) return false;
    if (targets !== null && !targets.has(series.target)) return false;
    if (f.visibleOnly === true || f.reportInFlight !== undefined) {
      const { flags } = unpackSample(series.method, status!, sched ?? null, lateUs ?? null, detail ?? null);
      if (f.visibleOnly === true && ((flags >> FLAG_KNOWN_SHIFT) & VISIBLE_BITS & ~flags) !== 0) return false;
      if (f.reportInFlight !== undefined && ((flags & FLAG.reportInFlight) !== 0) !== f.reportInFlight) return false;
    }
    if (loads !== null || f.stressRun !== undefined) {
      const { run, load } = unpackStress(row[PACKED_STRESS_INDEX]);
      if (loads !== null && !loads.has(load ?? 0)) return false;
      if (f.stressRun !== undefined && (run === null || run !== ctx.stressRunCode)) return false;
    }
    // late_ms in SQL is late_us / 1000.0: the same comparison in µs, exact.
    if (f.maxLateMs !== undefined && lateUs !== null && lateUs !== undefined && lateUs / 1000 > f.maxLateMs)
      return false;
    for (const [lo, hi] of exclude) if (t! >= lo && t! <= hi) return false;
    return true;
  };
}
