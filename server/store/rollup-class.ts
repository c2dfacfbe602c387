// Which rollup a sample adds to: its time bucket at each level, and its flag
// class — the sample filters the page offers (visible only, max tick
// lateness, report in flight, during a stress test), so a filtered query
// merges whole rollups.
import { MAX_LATE_MS_CHOICES } from "../../shared/contract/index.js";
import { phaseCode, STRESS_PHASES } from "../../shared/stress/phases.js";
import { FLAG, FLAG_KNOWN_SHIFT } from "./flags.js";

/**
 * Rollup levels: bucket width (ms) of level 0 (5 minutes), 1 (hour), 2 (6 hours), 3 (day).
 * 6 hours is the time charts' bucket over a month (chooseBucketMs): one row per bucket and series.
 * 5 minutes, not 1: a sparse month (a tick every ~10 s) would otherwise need
 * about one rollup row per sample; the raw edges of a range stay small
 * (≤ 2 × 5 min, ~30k rows for four tabs at 1 Hz).
 */
export const LEVEL_MS = [300_000, 3_600_000, 21_600_000, 86_400_000] as const;

/**
 * The level after the timed ones holds no time bucket (start_ms 0): every
 * sample ever stored, per series, client and class. /metrics reads its
 * aggregate rows, one per series, so a scrape costs the same after a month as
 * after an hour, and its counters never fall when retention prunes the timed
 * levels (Prometheus counters only reset, here when a client is deleted).
 */
export const TOTAL_LEVEL = LEVEL_MS.length;
/** Levels held in the rollups table: the timed ones and the total. */
export const LEVEL_COUNT = TOTAL_LEVEL + 1;
/** Exclusive end of a rollup's bucket (ms): the total's never ends. */
export const bucketEndMs = (level: number, startMs: number): number =>
  level === TOTAL_LEVEL ? Infinity : startMs + LEVEL_MS[level]!;
/** Start of the bucket of `level` holding time `t` (ms): the total's is 0. */
export const bucketStartMs = (level: number, t: number): number =>
  level === TOTAL_LEVEL ? 0 : t - (t % LEVEL_MS[level]!);

const VISIBLE_BITS = FLAG.visibleAtSend | FLAG.visibleAtReply;
const HIDDEN_BIT = 1;
const LATE_SHIFT = 1;
/** Lateness classes: 0 no tick (baselines), k = 1..N at most MAX_LATE_MS_CHOICES[k-1], N+1 later. */
const LATE_CLASSES = MAX_LATE_MS_CHOICES.length + 2;
const INFLIGHT_SHIFT = 4;
/** Report in flight: 0 unknown, 1 no, 2 yes. */
const INFLIGHT_VALUES = 3;
const LOADED_SHIFT = 6;
if (LATE_CLASSES > 8) throw new Error("lateness classes must fit three bits");

/** Every class a sample can have (below 255, the aggregate rows' ANY_CLASS). */
export const ALL_CLASSES: readonly number[] = (() => {
  const out: number[] = [];
  for (let loaded = 0; loaded < 2; loaded++)
    for (let inflight = 0; inflight < INFLIGHT_VALUES; inflight++)
      for (let late = 0; late < LATE_CLASSES; late++)
        for (let hidden = 0; hidden < 2; hidden++)
          out.push(hidden | (late << LATE_SHIFT) | (inflight << INFLIGHT_SHIFT) | (loaded << LOADED_SHIFT));
  return out;
})();
export const CLASS_COUNT = ALL_CLASSES.length;

/**
 * Class bits: 1 = sent or answered while hidden (a known-false visibility
 * bit); bits 1–3 = lateness class; bits 4–5 = report in flight (0 unknown, 1
 * no, 2 yes); bit 6 = taken during a stress test (any phase; `load` the
 * phase's code, null or 0 outside one: shared/stress/phases.ts).
 */
export function classOf(flags: number, lateUs: number | null, load: number | null = null): number {
  const hidden = ((flags >> FLAG_KNOWN_SHIFT) & VISIBLE_BITS & ~flags) !== 0 ? HIDDEN_BIT : 0;
  let late = 0;
  if (lateUs !== null) {
    late = MAX_LATE_MS_CHOICES.length + 1;
    for (let k = 0; k < MAX_LATE_MS_CHOICES.length; k++)
      if (lateUs <= MAX_LATE_MS_CHOICES[k]! * 1000) {
        late = k + 1;
        break;
      }
  }
  const inflightKnown = ((flags >> FLAG_KNOWN_SHIFT) & FLAG.reportInFlight) !== 0;
  const inflight = inflightKnown ? ((flags & FLAG.reportInFlight) !== 0 ? 2 : 1) : 0;
  const loaded = load !== null && load !== 0 ? 1 : 0;
  return hidden | (late << LATE_SHIFT) | (inflight << INFLIGHT_SHIFT) | (loaded << LOADED_SHIFT);
}

export interface ClassFilter {
  visibleOnly?: boolean | undefined;
  maxLateMs?: number | undefined;
  /** Stress-test phase codes to keep (0: outside any test); undefined or empty: all. */
  loads?: readonly number[] | undefined;
}

const PHASE_CODES = STRESS_PHASES.map(phaseCode);

/**
 * The classes a filter keeps, or null when rollups cannot answer it exactly
 * (a lateness limit that is not one of the classes' bounds; stress-test
 * phases other than all of them, or none of them: the classes know only
 * "during a test or not").
 */
export function classesFor(f: ClassFilter): number[] | null {
  let lateMax = LATE_CLASSES - 1;
  if (f.maxLateMs !== undefined) {
    const k = (MAX_LATE_MS_CHOICES as readonly number[]).indexOf(f.maxLateMs);
    if (k < 0) return null;
    lateMax = k + 1;
  }
  let loadedKept = [true, true];
  if (f.loads !== undefined && f.loads.length > 0) {
    const outside = f.loads.includes(0);
    const phases = PHASE_CODES.filter((c) => f.loads!.includes(c)).length;
    if (phases !== 0 && phases !== PHASE_CODES.length) return null;
    loadedKept = [outside, phases === PHASE_CODES.length];
  }
  return ALL_CLASSES.filter(
    (c) =>
      !(f.visibleOnly === true && (c & HIDDEN_BIT) !== 0) &&
      ((c >> LATE_SHIFT) & 7) <= lateMax &&
      loadedKept[(c >> LOADED_SHIFT) & 1] === true,
  );
}
