// The filters every query shares (/api/stats and the chart endpoints), turned
// into one SQL WHERE clause so each query reads only the rows it needs.
// (Query strings become filters in server/api/filter-query.ts.)
import { DERIVED_SERIES } from "../../shared/contract/index.js";
import { FLAG, FLAG_KNOWN_SHIFT } from "./flags.js";

export interface TimeWindow {
  fromMs: number;
  toMs: number;
}

export interface SampleFilter {
  /** Inclusive bounds on the sample's send time (epoch ms). */
  fromMs: number;
  toMs: number;
  clientId?: string | undefined;
  /** Only these methods / targets; undefined or empty = all. */
  methods?: readonly string[] | undefined;
  targets?: readonly string[] | undefined;
  /** Leave out samples known to have been sent or answered while the tab was hidden. */
  visibleOnly?: boolean | undefined;
  /** Leave out samples whose tick fired more than this many ms late. */
  maxLateMs?: number | undefined;
  /** Inclusive windows to leave out (the focus window's "everything except this"). */
  exclude?: readonly TimeWindow[] | undefined;
  /**
   * Count timeouts in the latency distribution at their stored timeout value
   * (they stay failures too). Selects no rows: it changes how they are summarised.
   */
  timeoutsInTail?: boolean | undefined;
  /**
   * true: only probes sent while a report to their server was in flight;
   * false: leave those out (samples that record nothing stay).
   */
  reportInFlight?: boolean | undefined;
  /**
   * Only samples of these stress-test phases, by code (shared/stress/phases.ts
   * loadCode: 0 for samples taken outside any test); undefined or empty = all.
   */
  loads?: readonly number[] | undefined;
  /** Only the samples of this stress-test run (its key, the wire's stressRun). */
  stressRun?: string | undefined;
}

export interface SqlWhere {
  /** Conditions on table `samples`, joined with AND; never empty. */
  sql: string;
  params: (string | number)[];
}

const VISIBLE_BITS = FLAG.visibleAtSend | FLAG.visibleAtReply;

export function sampleWhere(f: SampleFilter): SqlWhere {
  const conds = ["t >= ?", "t <= ?"];
  // t is an integer (epoch ms): a computed bound such as t + 12.004 ms selects
  // the same rows rounded inward, and PostgreSQL refuses a fraction for a bigint.
  const params: (string | number)[] = [Math.ceil(f.fromMs), Math.floor(f.toMs)];
  if (f.clientId !== undefined) {
    // "+session": walk the time range (SQLite's raw key, PostgreSQL's t index), not the client's sessions one by one.
    conds.push("+session IN (SELECT id FROM sessions WHERE client_id = ?)");
    params.push(f.clientId);
  }
  if (f.methods !== undefined && f.methods.length > 0) {
    // A derived series (tcpminrtt) is read from the rows of its stored method.
    const stored = [...new Set(f.methods.map((m) => storedMethodOf(m)))];
    conds.push(`method IN (${stored.map(() => "?").join(", ")})`);
    params.push(...stored);
  }
  if (f.targets !== undefined && f.targets.length > 0) {
    conds.push(`target IN (${f.targets.map(() => "?").join(", ")})`);
    params.push(...f.targets);
  }
  if (f.visibleOnly === true) {
    // A bit that is recorded (its "known" bit set) but false means hidden.
    // Samples that record no visibility (server-measured baselines) stay:
    // the page's visibility cannot have delayed them.
    conds.push(`((flags >> ${FLAG_KNOWN_SHIFT}) & ${VISIBLE_BITS} & ~flags) = 0`);
  }
  if (f.reportInFlight !== undefined) {
    const bit = FLAG.reportInFlight;
    conds.push(f.reportInFlight ? `(flags & ${bit}) != 0` : `(flags & ${bit}) = 0`);
  }
  if (f.maxLateMs !== undefined) {
    // Baselines have no tick, hence no lateness; they stay for comparison.
    conds.push("(late_ms IS NULL OR late_ms <= ?)");
    params.push(f.maxLateMs);
  }
  if (f.loads !== undefined && f.loads.length > 0) {
    // NULL is "outside any test", the filter's 0.
    conds.push(`coalesce(load, 0) IN (${f.loads.map(() => "?").join(", ")})`);
    params.push(...f.loads);
  }
  if (f.stressRun !== undefined) {
    conds.push("stress_run = (SELECT id FROM stress_runs WHERE run_key = ?)");
    params.push(f.stressRun);
  }
  for (const w of f.exclude ?? []) {
    conds.push("NOT (t >= ? AND t <= ?)");
    params.push(Math.ceil(w.fromMs), Math.floor(w.toMs));
  }
  return { sql: conds.join(" AND "), params };
}

/** The stored method a series is read from: itself, or tcprtt for tcpminrtt. */
export function storedMethodOf(series: string): string {
  return Object.hasOwn(DERIVED_SERIES, series) ? DERIVED_SERIES[series as keyof typeof DERIVED_SERIES] : series;
}

/**
 * Which series of the rows a filter asks for: a stored method's own series
 * unless only its derived series was named; a derived series when it or its
 * stored method was named (or no method filter at all).
 */
export function seriesWanted(f: SampleFilter): (series: string) => boolean {
  const methods = f.methods;
  if (methods === undefined || methods.length === 0) return () => true;
  return (series) =>
    methods.includes(series) || (storedMethodOf(series) !== series && methods.includes(storedMethodOf(series)));
}
