// Version 6's raw table, a row per sample in the folded layout
// (../raw-layout.ts), and the `samples` view over it: what the upgrades of
// files older than version 7 write into before their rows become blocks
// (blocks.ts), and what testkit/sample-table.ts rebuilds from blocks so
// tests can read samples with SQL. Not in a version 7 file.
import { BEST2_LEGS, OUTCOMES, PROBE_METHODS } from "../../../../shared/methods.js";
import { FLAGS_MAX, OUTCOME_UNIT, PACKED_RAW_COLUMNS, REASON_UNIT, TYPICAL_FLAGS } from "../raw-layout.js";

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
function samplesViewSql(): string {
  const l = logicalRawSql("r", "s");
  return `CREATE VIEW IF NOT EXISTS samples AS
SELECT r.session, r.seq, r.t, s.method, s.target, r.us / 1000.0 AS ms, ${caseOf(l.outcome, OUTCOMES)} AS outcome,
       r.t - (${l.sched_ms}) AS scheduled_t, r.late_us / 1000.0 AS late_ms, r.hidden_us / 1000.0 AS hidden_ms, ${l.flags} AS flags,
       rs.text AS reason, ${caseOf(l.winner, BEST2_LEGS)} AS winner, (${l.other_us}) / 1000.0 AS other_ms,
       ${caseOf(l.other_outcome, OUTCOMES)} AS other_outcome, (${l.minrtt_us}) / 1000.0 AS minrtt,
       r.lag_us / 1000.0 AS server_lag_ms, r.server_us / 1000.0 AS server_ms
FROM raw_samples r JOIN series s ON s.id = r.series LEFT JOIN reasons rs ON rs.id = ${l.reason};`;
}

/** raw_samples as logical rows (RAW_COLUMNS' names and order): for upgrade tests that compare with rawValues. */
export function logicalRawSelectSql(): string {
  const l = logicalRawSql("r", "s");
  return `SELECT r.session, r.seq, r.t, r.series, ${l.outcome} AS outcome, r.us, ${l.sched_ms} AS sched_ms, r.late_us, r.hidden_us,
       ${l.flags} AS flags, ${l.reason} AS reason, ${l.winner} AS winner, ${l.other_us} AS other_us, ${l.other_outcome} AS other_outcome,
       ${l.minrtt_us} AS minrtt_us, r.lag_us, r.server_us
FROM raw_samples r JOIN series s ON s.id = r.series`;
}

/**
 * Version 6's raw table and the samples view over it. WITHOUT ROWID keyed on
 * (t, session, seq): every reader asked for a time range, so the storage
 * order was time and no second index was needed.
 */
export const RAW_SAMPLES_V6_DDL = `
CREATE TABLE IF NOT EXISTS raw_samples (
  session   INTEGER NOT NULL,
  seq       INTEGER NOT NULL,
  t         INTEGER NOT NULL,  -- epoch ms, when sent
  series    INTEGER NOT NULL,  -- series.id
  status    INTEGER NOT NULL,  -- outcome, flags and reason folded (raw-layout.ts)
  us        INTEGER,           -- latency; timeout value for timeouts; NULL for error/skipped
  sched     INTEGER,           -- t - scheduledT (ms) less late_us' whole ms
  late_us   INTEGER,
  hidden_us INTEGER,
  detail    INTEGER,           -- best2: the race packed; tcprtt: min RTT µs
  lag_us    INTEGER,           -- the echo server's event-loop delay
  server_us INTEGER,           -- the server's handler time (wire serverMs)
  PRIMARY KEY (t, session, seq)
) WITHOUT ROWID;
${samplesViewSql()}
`;

/** One row into version 6's raw_samples, its values as packRaw returns them. */
export const INSERT_RAW = `INSERT OR IGNORE INTO raw_samples (${PACKED_RAW_COLUMNS})
  VALUES (${PACKED_RAW_COLUMNS.split(",")
    .map(() => "?")
    .join(", ")})`;
