// How a raw sample is folded before it goes into a block (raw-block.ts).
// SQLite spent a header byte on every column of every row, NULLs included,
// and of a sample's 17 logical columns (../logical-row.ts) a visible page's
// probe leaves four empty and three at a constant, a baseline more. So the
// columns absent or constant on most rows are folded into their neighbours,
// and most of a typical sample's folded values are 0, a single varint byte
// in a block:
//   status  outcome + 8 × (flags XOR the method's usual flags) + 2^19 × (reason id + 1):
//           0 for a visible page's ok probe and for an ok baseline
//   sched   t − scheduledT less the whole ms of late_us: 0 for every sample the page sends
//   detail  best2: the race (winner, other outcome, other µs) in one integer; tcprtt: min RTT µs
//   stress  a stress test's run and phase (../logical-row.ts STRESS_COLUMNS): run × 8 + phase,
//           NULL outside a test (block field "stress", schema version 8)
// packRaw folds a logical row (what the writers build); unpackSample and
// edgeRowOf unfold it for the readers. The same fold was raw_samples' row
// layout in schema versions 5 and 6 (migrations/v6-rows.ts keeps its SQL).
import { BEST2_LEGS, OUTCOMES, PROBE_METHODS } from "../../../shared/methods.js";
import { unzigzag, zigzag } from "../../../shared/varint.js";
import { LOAD_INDEX, STRESS_RUN_INDEX } from "../logical-row.js";
import type { EdgeRow } from "../raw-reads.js";
import type { PackedRow } from "./raw-block.js";

/** A packed row's columns, in packRaw's order (version 6's raw_samples columns); a block's rows add the stress value (packSample). */
export const PACKED_RAW_COLUMNS =
  "session, seq, t, series, status, us, sched, late_us, hidden_us, detail, lag_us, server_us";
/** Where a block row's stress value sits (after PACKED_RAW_COLUMNS). */
export const PACKED_STRESS_INDEX = 12;
/** stress = run × PHASE_UNIT + phase code: the phase takes three bits. */
const PHASE_UNIT = 8;

/** A stress test's run and phase in one integer, or null outside a test. */
export function packStress(run: number | null, load: number | null): number | null {
  if (run === null && load === null) return null;
  return (run ?? 0) * PHASE_UNIT + (load ?? 0);
}

/** packStress' inverse: the run's code and the phase's, each null when absent. */
export function unpackStress(stress: number | null | undefined): { run: number | null; load: number | null } {
  if (stress === null || stress === undefined) return { run: null, load: null };
  const run = Math.floor(stress / PHASE_UNIT);
  const load = stress % PHASE_UNIT;
  return { run: run === 0 ? null : run, load: load === 0 ? null : load };
}

/** The flags (../flags.ts FLAG) of a visible page's probe: every boolean known, visible at send and reply, nothing else. */
export const TYPICAL_FLAGS = 0x1f03;
/** The flags a sample of this method usually has: a probe's, or none (baselines). */
const usualFlags = (method: string) => ((PROBE_METHODS as readonly string[]).includes(method) ? TYPICAL_FLAGS : 0);

/** status = outcome + OUTCOME_UNIT × (flags XOR usual) + REASON_UNIT × (reason id + 1). */
export const OUTCOME_UNIT = 8;
export const FLAGS_MAX = 0xffff;
export const REASON_UNIT = OUTCOME_UNIT * (FLAGS_MAX + 1);

/** best2's race in one integer: ((zigzag(otherUs) + 1) × 16 + otherOutcome + 1) × 4 + winner + 1, each 0 when absent. */
function packRace(winner: number | null, otherOutcome: number | null, otherUs: number | null): number | null {
  if (winner === null && otherOutcome === null && otherUs === null) return null;
  return (
    ((otherUs === null ? 0 : zigzag(otherUs) + 1) * 16 + (otherOutcome === null ? 0 : otherOutcome + 1)) * 4 +
    (winner === null ? 0 : winner + 1)
  );
}

/** A packed race's fields (packRace's inverse). */
function unpackRace(detail: number): { winner: number | null; otherOutcome: number | null; otherUs: number | null } {
  const w = detail % 4;
  const o = Math.floor(detail / 4) % 16;
  const u = Math.floor(detail / 64);
  return {
    winner: w === 0 ? null : w - 1,
    otherOutcome: o === 0 ? null : o - 1,
    otherUs: u === 0 ? null : unzigzag(u - 1),
  };
}

/** A row packRaw cannot fold without changing it: refused, so an upgrade rolls back rather than alter a sample. */
export class UnpackableRowError extends Error {
  constructor(v: readonly (number | null)[], why: string) {
    super(`raw sample (session ${v[0]}, seq ${v[1]}, t ${v[2]}) cannot be stored: ${why}`);
    this.name = "UnpackableRowError";
  }
}

const isInt = (x: number | null | undefined): boolean => x === null || x === undefined || Number.isSafeInteger(x);
const inRange = (x: number | null | undefined, max: number): boolean =>
  x === null || x === undefined || (Number.isInteger(x) && x >= 0 && x <= max);

/** Why a logical row would not read back as written, or null. The contract (sample-reader.ts) never lets a sample through that fails it. */
function unpackable(v: readonly (number | null)[]): string | null {
  const [, , , , outcome, , , , , flags, reason, winner, otherUs, otherOutcome, minrttUs, , , run, load] = v;
  if (!v.every(isInt)) return "a value is not an integer";
  if (!inRange(outcome, OUTCOMES.length - 1) || outcome === null) return "outcome out of range";
  if (!inRange(otherOutcome, OUTCOMES.length - 1) || !inRange(winner, BEST2_LEGS.length - 1))
    return "race field out of range";
  if (!inRange(flags, FLAGS_MAX) || flags === null) return "flags out of range";
  if (!inRange(reason, Number.MAX_SAFE_INTEGER / REASON_UNIT - 1)) return "reason id out of range";
  if (minrttUs !== null && minrttUs !== undefined && (winner !== null || otherUs !== null || otherOutcome !== null))
    return "min RTT and a race on one sample";
  if (!inRange(load, PHASE_UNIT - 1) || !inRange(run, Number.MAX_SAFE_INTEGER / PHASE_UNIT / 2 - 1))
    return "stress run or phase out of range";
  return null;
}

/**
 * A logical raw row (../logical-row.ts rawValues' order) of a sample of `method`,
 * folded. minrtt (tcprtt samples only) and the race (best2
 * samples only) share `detail`: the contract never lets one sample carry both.
 */
export function packRaw(v: readonly (number | null)[], method: string): (number | null)[] {
  const why = unpackable(v);
  if (why !== null) throw new UnpackableRowError(v, why);
  const [
    session,
    seq,
    t,
    series,
    outcome,
    us,
    schedMs,
    lateUs,
    hiddenUs,
    flags,
    reason,
    winner,
    otherUs,
    otherOutcome,
    minrttUs,
    lagUs,
    serverUs,
  ] = v;
  return [
    session!,
    seq!,
    t!,
    series!,
    outcome! +
      OUTCOME_UNIT * (flags! ^ usualFlags(method)) +
      (reason === null || reason === undefined ? 0 : REASON_UNIT * (reason + 1)),
    us ?? null,
    schedMs === null || schedMs === undefined ? null : schedMs - Math.trunc((lateUs ?? 0) / 1000),
    lateUs ?? null,
    hiddenUs ?? null,
    minrttUs ?? packRace(winner ?? null, otherOutcome ?? null, otherUs ?? null),
    lagUs ?? null,
    serverUs ?? null,
  ];
}

/**
 * A logical row as a block stores it (raw-block.ts): packRaw's columns, then
 * the stress test's run and phase folded into one (packStress). packRaw alone
 * is version 6's row, which the upgrades still write.
 */
export function packSample(v: readonly (number | null)[], method: string): (number | null)[] {
  const row = packRaw(v, method);
  row.push(packStress(v[STRESS_RUN_INDEX] ?? null, v[LOAD_INDEX] ?? null));
  return row;
}

/** A sample's folded columns in logical form (integer codes, µs), as rawValues wrote them. */
export interface UnpackedSample {
  outcome: number;
  flags: number;
  reason: number | null;
  /** t − scheduledT (ms). */
  schedMs: number | null;
  winner: number | null;
  otherOutcome: number | null;
  otherUs: number | null;
  minrttUs: number | null;
}

/** The folded columns of a stored sample of `method`, unfolded: what the `samples` view computes, in JavaScript. */
export function unpackSample(
  method: string,
  status: number,
  sched: number | null,
  lateUs: number | null,
  detail: number | null,
): UnpackedSample {
  const reason = Math.floor(status / REASON_UNIT);
  const race = method === "best2" && detail !== null ? unpackRace(detail) : null;
  return {
    outcome: status % OUTCOME_UNIT,
    flags: (Math.floor(status / OUTCOME_UNIT) % (FLAGS_MAX + 1)) ^ usualFlags(method),
    reason: reason === 0 ? null : reason - 1,
    schedMs: sched === null ? null : sched + (lateUs === null ? 0 : Math.trunc(lateUs / 1000)),
    winner: race === null ? null : race.winner,
    otherOutcome: race === null ? null : race.otherOutcome,
    otherUs: race === null ? null : race.otherUs,
    minrttUs: method === "tcprtt" ? detail : null,
  };
}

/** A packed row's (t, series, status, us, late_us, detail, stress) as the query reader folds it into rollup cells. */
export function edgeRowOf(method: string, row: PackedRow): EdgeRow {
  const [, , t, series, status, us, , lateUs, , detail] = row;
  const u = unpackSample(method, status!, null, lateUs ?? null, detail ?? null);
  return {
    t: t!,
    series: series!,
    outcome: u.outcome,
    us: us ?? null,
    flags: u.flags,
    lateUs: lateUs ?? null,
    winner: u.winner,
    otherUs: u.otherUs,
    minrttUs: u.minrttUs,
    load: unpackStress(row[PACKED_STRESS_INDEX]).load,
  };
}
