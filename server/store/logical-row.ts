// The logical raw sample: a wire sample as a row of small-integer codes and
// integer µs (RAW_COLUMNS), the one form both engines write from. PostgreSQL
// stores it as it is, a column per field; SQLite folds it into its packed,
// blocked layout (sqlite/raw-layout.ts, sqlite/raw-block.ts). The rollups of
// both are added from it (rollupRowOf).
import { TCP_MIN_RTT_SERIES, type Sample } from "../../shared/contract/index.js";
import { BEST2_LEGS, OUTCOMES } from "../../shared/methods.js";
import { phaseCode } from "../../shared/stress/phases.js";
import { packFlags } from "./flags.js";
import type { RollupRow } from "./rollup-batch.js";
import { classOf } from "./rollup-class.js";

/**
 * A raw sample's logical columns, in rawValues' order: the PostgreSQL store's
 * raw_samples columns (the older versions' columns, which the upgrades read),
 * then STRESS_COLUMNS.
 */
export const RAW_COLUMNS =
  "session, seq, t, series, outcome, us, sched_ms, late_us, hidden_us, flags, reason, winner, other_us, other_outcome, minrtt_us, lag_us, server_us";
/**
 * The stress test's columns after RAW_COLUMNS: the run (stress_runs.id) and
 * the phase's code (shared/stress/phases.ts phaseCode), both NULL outside a
 * test. PostgreSQL keeps a column each, SQLite one folded value (sqlite/raw-layout.ts).
 */
export const STRESS_COLUMNS = "stress_run, load";
/** Where STRESS_COLUMNS start in a logical row. */
export const STRESS_RUN_INDEX = 17;
export const LOAD_INDEX = 18;

/** A logical row: RAW_COLUMNS' values then STRESS_COLUMNS', in order. */
export type LogicalRow = (number | null)[];

/** Milliseconds (the wire's unit, 3 decimals at most matter) → integer µs. */
export const toUs = (ms: number): number => Math.round(ms * 1000);
export const toUsOrNull = (ms: number | null | undefined): number | null =>
  ms === null || ms === undefined ? null : toUs(ms);
/** Stored integer µs → the wire's ms. */
export const toMsOrNull = (us: number | null): number | null => (us === null ? null : us / 1000);

/** A sample's outcome / otherOutcome as stored: index into OUTCOMES. */
export const outcomeCode = (o: string): number => (OUTCOMES as readonly string[]).indexOf(o);
/** A best2 sample's winner as stored: index into BEST2_LEGS. */
export const winnerCode = (w: string): number => (BEST2_LEGS as readonly string[]).indexOf(w);

/** The codes a logical row is made with: each engine's cache of its series, reasons and stress_runs tables. */
export interface CodeLookup {
  seriesOf(method: string, target: string): number;
  reasonOf(text: string): number;
  /** A stress-test run's code by its key (the wire's stressRun), added at its first sample. */
  runOf(key: string): number;
}

/** A wire sample's logical raw values (RAW_COLUMNS' order) in session `session`. */
export function rawValues(session: number, s: Sample & { serverMs?: number }, codes: CodeLookup): LogicalRow {
  return [
    session,
    s.seq,
    s.t,
    codes.seriesOf(s.method, s.target),
    outcomeCode(s.outcome),
    toUsOrNull(s.ms),
    s.scheduledT === undefined ? null : s.t - s.scheduledT,
    toUsOrNull(s.lateMs),
    toUsOrNull(s.hiddenMs),
    packFlags(s),
    s.reason === undefined ? null : codes.reasonOf(s.reason),
    s.winner === undefined ? null : winnerCode(s.winner),
    toUsOrNull(s.otherMs),
    s.otherOutcome === undefined ? null : outcomeCode(s.otherOutcome),
    toUsOrNull(s.minrtt),
    toUsOrNull(s.serverLagMs),
    toUsOrNull(s.serverMs),
    s.stressRun === undefined ? null : codes.runOf(s.stressRun),
    s.load === undefined ? null : phaseCode(s.load),
  ];
}

/**
 * What a logical row of a sample of (method, target) adds to the rollups of
 * client code `client`: a tcprtt sample's min RTT goes to its target's
 * derived series as well.
 */
export function rollupRowOf(
  v: readonly (number | null)[],
  client: number,
  method: string,
  target: string,
  codes: Pick<CodeLookup, "seriesOf">,
): RollupRow {
  const [, , t, series, outcome, us, , lateUs, , flags, , winner, otherUs, , minrttUs, , serverUs] = v;
  return {
    t: t!,
    series: series!,
    client,
    cls: classOf(flags!, lateUs ?? null, v[LOAD_INDEX] ?? null),
    outcome: outcome!,
    us: us ?? null,
    winner: winner ?? null,
    otherUs: otherUs ?? null,
    minrttSeries:
      method === "tcprtt" && minrttUs !== null && minrttUs !== undefined
        ? codes.seriesOf(TCP_MIN_RTT_SERIES, target)
        : null,
    minrttUs: minrttUs ?? null,
    serverUs: serverUs ?? null,
  };
}

/** The [lo, hi] of the samples' t, or null for none: a session's span widens to it. */
export function spanOf(samples: readonly { t: number }[]): { lo: number; hi: number } | null {
  if (samples.length === 0) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of samples) {
    if (s.t < lo) lo = s.t;
    if (s.t > hi) hi = s.t;
  }
  return { lo, hi };
}
