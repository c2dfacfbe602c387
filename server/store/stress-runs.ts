// Stress-test runs beside the samples (docs/stress.md): a run's code is added
// by the writer at its first sample (logical-row.ts STRESS_COLUMNS), and the
// page's report (POST /api/stress) fills in whose it is, which server it
// loaded, when its phases ran and what they moved. Each engine implements
// the writes (sqlite/stress-runs.ts, postgres/stress-runs.ts); the reads are
// one SELECT through the read port, the same on both.
import { parseWith } from "../../shared/contract/parse.js";
import {
  phaseReportSchema,
  type PhaseReport,
  type RunOutcome,
  type StressReport,
} from "../../shared/contract/stress.js";
import { z } from "../../shared/zod.js";
import type { SqlReads } from "./read-pool.js";

/** A reported run as stored. */
export interface StoredStressRun {
  /** The run's code: what its samples carry. */
  code: number;
  /** The page's id for it (the wire's stressRun). */
  key: string;
  /** The reporting page's session (sessions.id) and its clientId. */
  session: number;
  clientId: string;
  target: string;
  startMs: number;
  endMs: number;
  outcome: RunOutcome;
  reason: string | null;
  phases: PhaseReport[];
}

/**
 * What became of a report: stored; kept the stored one (it says as much or
 * more: a late copy of an earlier report); or refused, for a session this
 * database has no sample of yet, or one of another client, or a run another
 * session has reported.
 */
export type ReportVerdict = "stored" | "kept" | "session-unknown" | "session-not-yours" | "run-not-yours";

export interface StressRunStore {
  /** Stores a run's report, replacing an older one of the same run. */
  report(r: StressReport): Promise<ReportVerdict>;
  /** Reported runs that began within [fromMs, toMs], of one client or all, oldest first. */
  runs(fromMs: number, toMs: number, clientId?: string): Promise<StoredStressRun[]>;
}

/**
 * A report replaces the stored one when it ends later, or as late while the
 * stored one still said "running" (the final report after the last phase's).
 * In SQL over stress_runs (stored) and excluded (the new row), for ON CONFLICT.
 */
export const NEWER_REPORT_SQL =
  "(stress_runs.end_ms IS NULL OR excluded.end_ms > stress_runs.end_ms OR (excluded.end_ms = stress_runs.end_ms AND stress_runs.outcome = 'running'))";

/** The upsert both engines run: a run's row by key, updated only by its own session's newer report. */
export const UPSERT_REPORT_SQL = `INSERT INTO stress_runs (run_key, session, target, start_ms, end_ms, outcome, reason, phases)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (run_key) DO UPDATE SET session = excluded.session, target = excluded.target,
    start_ms = excluded.start_ms, end_ms = excluded.end_ms, outcome = excluded.outcome,
    reason = excluded.reason, phases = excluded.phases
  WHERE (stress_runs.session IS NULL OR stress_runs.session = excluded.session) AND ${NEWER_REPORT_SQL}`;

/** UPSERT_REPORT_SQL's parameters for a report of session `session`. */
export function upsertParams(r: StressReport, session: number): (string | number | null)[] {
  return [
    r.run,
    session,
    r.target,
    r.phases[0]!.start,
    r.phases.at(-1)!.end,
    r.outcome,
    r.reason ?? null,
    JSON.stringify(r.phases),
  ];
}

/** Who a report's session is, read before the upsert: its row id, or why the report is refused. */
export async function reportingSession(pool: SqlReads, r: StressReport): Promise<number | ReportVerdict> {
  const rows = await pool.all<{ id: number; client_id: string }>(
    "SELECT id, client_id FROM sessions WHERE session_key = ?",
    [r.sessionId],
  );
  const s = rows[0];
  if (s === undefined) return "session-unknown";
  return s.client_id === r.clientId ? Number(s.id) : "session-not-yours";
}

/** After an upsert that changed nothing: the stored report was newer, or the run is another session's. */
export async function unchangedVerdict(pool: SqlReads, key: string, session: number): Promise<ReportVerdict> {
  const rows = await pool.all<{ session: number | null }>("SELECT session FROM stress_runs WHERE run_key = ?", [key]);
  const owner = rows[0]?.session ?? null;
  return owner === null || Number(owner) === session ? "kept" : "run-not-yours";
}

const storedPhasesSchema = z.array(phaseReportSchema);

/** Reported runs that began in [fromMs, toMs], through the read port (the same SQL on both engines). */
export async function readStressRuns(
  pool: SqlReads,
  fromMs: number,
  toMs: number,
  clientId?: string,
): Promise<StoredStressRun[]> {
  const rows = await pool.all<{
    id: number;
    run_key: string;
    session: number;
    client_id: string;
    target: string;
    start_ms: number;
    end_ms: number;
    outcome: RunOutcome;
    reason: string | null;
    phases: string;
  }>(
    `SELECT r.id, r.run_key, r.session, s.client_id, r.target, r.start_ms, r.end_ms, r.outcome, r.reason, r.phases
     FROM stress_runs r JOIN sessions s ON s.id = r.session
     WHERE r.start_ms >= ? AND r.start_ms <= ?${clientId === undefined ? "" : " AND s.client_id = ?"}
     ORDER BY r.start_ms, r.id`,
    clientId === undefined ? [Math.ceil(fromMs), Math.floor(toMs)] : [Math.ceil(fromMs), Math.floor(toMs), clientId],
  );
  const out: StoredStressRun[] = [];
  for (const r of rows) {
    // Written by this server from a checked report; a row that does not parse is skipped, not trusted.
    let phases: unknown;
    try {
      phases = JSON.parse(r.phases);
    } catch {
      continue;
    }
    const parsed = parseWith(storedPhasesSchema, phases);
    if (!parsed.ok || parsed.value.length === 0) continue;
    out.push({
      code: Number(r.id),
      key: r.run_key,
      session: Number(r.session),
      clientId: r.client_id,
      target: r.target,
      startMs: Number(r.start_ms),
      endMs: Number(r.end_ms),
      outcome: r.outcome,
      reason: r.reason,
      phases: parsed.value,
    });
  }
  return out;
}
