// How a raw sample sits in SQLite's raw_samples (schema version 5). SQLite
// spends a header byte on every column of every row, NULLs included, and a
// row had 17 columns, of which a visible page's probe left four empty and
// three at a constant, a baseline more. Version 5 folds the columns that are
// absent or constant on most rows into their neighbours, in forms the
// `samples` view decodes with plain SQL (so the sqlite3 shell still reads
// samples as before) and edgeReader decodes in JavaScript:
//   status  outcome + 8 × (flags XOR the method's usual flags) + 2^19 × (reason id + 1):
//           0 for a visible page's ok probe and for an ok baseline
//   sched   t − scheduledT less the whole ms of late_us: 0 for every sample the page sends
//   detail  best2: the race (winner, other outcome, other µs) in one integer; tcprtt: min RTT µs
// SQLite stores the integers 0 and 1 in the record header alone, so those
// cost one header byte and no value byte. Measured on a day of four tabs at a
// real tab's rate (`npm run bench -- disk-real-rate`): see docs/performance.md.
// The logical row (writer.ts rawValues: RAW_COLUMNS, as the PostgreSQL store
// keeps it) is what the writers build; packRaw turns it into this layout.
import { BEST2_LEGS, OUTCOMES, PROBE_METHODS } from "../../shared/methods.js";
import { unzigzag, zigzag } from "../../shared/varint.js";

/** raw_samples' columns in packRaw's order. */
export const PACKED_RAW_COLUMNS =
  "session, seq, t, series, status, us, sched, late_us, hidden_us, detail, lag_us, server_us";

/** The flags (schema.ts FLAG) of a visible page's probe: every boolean known, visible at send and reply, nothing else. */
export const TYPICAL_FLAGS = 0x1f03;
/** The flags a sample of this method usually has: a probe's, or none (baselines). */
const usualFlags = (method: string) => ((PROBE_METHODS as readonly string[]).includes(method) ? TYPICAL_FLAGS : 0);

const OUTCOME_UNIT = 8;
const FLAGS_MAX = 0xffff;
const REASON_UNIT = OUTCOME_UNIT * (FLAGS_MAX + 1);

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
  const [, , , , outcome, , , , , flags, reason, winner, otherUs, otherOutcome, minrttUs] = v;
  if (!v.every(isInt)) return "a value is not an integer";
  if (!inRange(outcome, OUTCOMES.length - 1) || outcome === null) return "outcome out of range";
  if (!inRange(otherOutcome, OUTCOMES.length - 1) || !inRange(winner, BEST2_LEGS.length - 1))
    return "race field out of range";
  if (!inRange(flags, FLAGS_MAX) || flags === null) return "flags out of range";
  if (!inRange(reason, Number.MAX_SAFE_INTEGER / REASON_UNIT - 1)) return "reason id out of range";
  if (minrttUs !== null && minrttUs !== undefined && (winner !== null || otherUs !== null || otherOutcome !== null))
    return "min RTT and a race on one sample";
  return null;
}

/**
 * A logical raw row (writer.ts rawValues' order) of a sample of `method` in
 * raw_samples' layout. minrtt (tcprtt samples only) and the race (best2
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

const caseOf = (expr: string, names: readonly string[]) =>
  `CASE ${expr} ${names.map((n, i) => `WHEN ${i} THEN '${n}'`).join(" ")} END`;
/** a XOR b (SQLite has no XOR operator). */
const xor = (a: string, b: string) => `((${a}) | (${b})) - ((${a}) & (${b}))`;
const unzigzagSql = (z: string) => `CASE WHEN (${z}) & 1 THEN -(((${z}) + 1) >> 1) ELSE (${z}) >> 1 END`;

/**
 * The logical columns of raw_samples row `r` whose series row is `s`, in SQL
 * (integer codes and µs, as rawValues has them): the view and the upgrade
 * tests read through these.
 */
function logicalRawSql(
  r: string,
  s: string,
): Record<"outcome" | "reason" | "sched_ms" | "flags" | "winner" | "other_outcome" | "other_us" | "minrtt_us", string> {
  const best2 = (expr: string) => `CASE WHEN ${s}.method = 'best2' THEN ${expr} END`;
  const usual = `CASE WHEN ${s}.method IN (${PROBE_METHODS.map((m) => `'${m}'`).join(", ")}) THEN ${TYPICAL_FLAGS} ELSE 0 END`;
  return {
    outcome: `${r}.status & ${OUTCOME_UNIT - 1}`,
    reason: `nullif(${r}.status / ${REASON_UNIT}, 0) - 1`,
    sched_ms: `${r}.sched + coalesce(${r}.late_us / 1000, 0)`,
    flags: xor(`(${r}.status / ${OUTCOME_UNIT}) & ${FLAGS_MAX}`, usual),
    winner: best2(`nullif(${r}.detail & 3, 0) - 1`),
    other_outcome: best2(`nullif((${r}.detail >> 2) & 15, 0) - 1`),
    other_us: best2(`CASE WHEN ${r}.detail >> 6 = 0 THEN NULL ELSE ${unzigzagSql(`(${r}.detail >> 6) - 1`)} END`),
    minrtt_us: `CASE WHEN ${s}.method = 'tcprtt' THEN ${r}.detail END`,
  };
}

/** The `samples` view: version 1's columns (names, ms, text codes) over raw_samples. */
export function samplesViewSql(): string {
  const l = logicalRawSql("r", "s");
  return `CREATE VIEW IF NOT EXISTS samples AS
SELECT r.session, r.seq, r.t, s.method, s.target, r.us / 1000.0 AS ms, ${caseOf(l.outcome, OUTCOMES)} AS outcome,
       r.t - (${l.sched_ms}) AS scheduled_t, r.late_us / 1000.0 AS late_ms, r.hidden_us / 1000.0 AS hidden_ms, ${l.flags} AS flags,
       rs.text AS reason, ${caseOf(l.winner, BEST2_LEGS)} AS winner, (${l.other_us}) / 1000.0 AS other_ms,
       ${caseOf(l.other_outcome, OUTCOMES)} AS other_outcome, (${l.minrtt_us}) / 1000.0 AS minrtt,
       r.lag_us / 1000.0 AS server_lag_ms, r.server_us / 1000.0 AS server_ms
FROM raw_samples r JOIN series s ON s.id = r.series LEFT JOIN reasons rs ON rs.id = ${l.reason};`;
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

/** raw_samples as logical rows (RAW_COLUMNS' names and order): for upgrade tests and benchmarks that compare with rawValues. */
export function logicalRawSelectSql(): string {
  const l = logicalRawSql("r", "s");
  return `SELECT r.session, r.seq, r.t, r.series, ${l.outcome} AS outcome, r.us, ${l.sched_ms} AS sched_ms, r.late_us, r.hidden_us,
       ${l.flags} AS flags, ${l.reason} AS reason, ${l.winner} AS winner, ${l.other_us} AS other_us, ${l.other_outcome} AS other_outcome,
       ${l.minrtt_us} AS minrtt_us, r.lag_us, r.server_us
FROM raw_samples r JOIN series s ON s.id = r.series`;
}

/** How a store's raw_samples holds a sample: SQLite's folded columns, or the PostgreSQL store's column per field. */
export type RawLayout = "packed" | "columns";

/** What the query reader folds into rollup cells from a raw row, in logical form. */
export interface EdgeRow {
  t: number;
  series: number;
  outcome: number;
  us: number | null;
  flags: number;
  lateUs: number | null;
  winner: number | null;
  otherUs: number | null;
  minrttUs: number | null;
}

/**
 * The columns to SELECT from raw_samples for EdgeRows, and the decoder of one
 * selected row; `method` names a series id's method (detail means best2's
 * race or tcprtt's min RTT by it).
 */
export function edgeReader(
  layout: RawLayout,
  method: (series: number) => string | undefined,
): { columns: string; decode: (row: unknown[]) => EdgeRow } {
  if (layout === "columns")
    return {
      columns: "t, series, outcome, us, flags, late_us, winner, other_us, minrtt_us",
      decode: (row) => {
        const [t, series, outcome, us, flags, lateUs, winner, otherUs, minrttUs] = row as [
          number,
          number,
          number,
          number | null,
          number,
          number | null,
          number | null,
          number | null,
          number | null,
        ];
        return { t, series, outcome, us, flags, lateUs, winner, otherUs, minrttUs };
      },
    };
  return {
    columns: "t, series, status, us, late_us, detail",
    decode: (row) => {
      const [t, series, status, us, lateUs, detail] = row as [
        number,
        number,
        number,
        number | null,
        number | null,
        number | null,
      ];
      const u = unpackSample(method(series) ?? "", status, null, lateUs, detail);
      return {
        t,
        series,
        outcome: u.outcome,
        us,
        flags: u.flags,
        lateUs,
        winner: u.winner,
        otherUs: u.otherUs,
        minrttUs: u.minrttUs,
      };
    },
  };
}
