// Incidents as the health monitor opens and closes them (server/health/):
// one row per incident in a table of each engine's own (sqlite/schema.ts,
// postgres/schema.ts), rewritten as it changes. Reading goes through the
// read port, the same SQL on both engines; writing is each engine's
// (sqlite/incidents.ts, postgres/incidents.ts).
import { incidentSchema, parseWith, type Incident } from "../../shared/contract/index.js";
import type { SqlParam, SqlReads } from "./read-pool.js";

export interface IncidentStore {
  /** Inserts the incident, or replaces the stored one with the same id. */
  saveIncident(incident: Incident): Promise<void>;
  /**
   * Incidents that overlap [fromMs, toMs] (start ≤ toMs, and end ≥ fromMs or
   * still open), oldest first; at most `limit`, the newest kept when more match.
   */
  incidentsBetween(fromMs: number, toMs: number, limit: number): Promise<{ incidents: Incident[]; truncated: boolean }>;
  /** Incidents still open that `observer` opened. */
  openIncidents(observer: string): Promise<Incident[]>;
}

/**
 * The upsert both engines run (SQLite ≥ 3.24 and PostgreSQL share the
 * syntax), `?` placeholders in the order incidentParams gives them.
 */
export const UPSERT_INCIDENT_SQL = `INSERT INTO incidents (id, observer, target, kind, start_ms, end_ms, verdict, summary, detail)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET observer = excluded.observer, target = excluded.target, kind = excluded.kind,
  start_ms = excluded.start_ms, end_ms = excluded.end_ms, verdict = excluded.verdict, summary = excluded.summary,
  detail = excluded.detail`;

/** What the columns do not hold, as JSON in `detail`. */
type Detail = Pick<Incident, "methods" | "clients" | "evidence" | "peak">;

export function incidentParams(i: Incident): SqlParam[] {
  const detail: Detail = { methods: i.methods, clients: i.clients, evidence: i.evidence, peak: i.peak };
  return [i.id, i.observer, i.target, i.kind, i.start, i.end, i.verdict, i.summary, JSON.stringify(detail)];
}

interface IncidentRow {
  id: string;
  observer: string;
  target: string;
  kind: string;
  start_ms: number;
  end_ms: number | null;
  verdict: string;
  summary: string;
  detail: string;
}

const COLUMNS = "id, observer, target, kind, start_ms, end_ms, verdict, summary, detail";

/** A stored row as an incident, checked against the contract; null for a row this tailprobe cannot read. */
function incidentOf(r: IncidentRow): Incident | null {
  let detail: unknown;
  try {
    detail = JSON.parse(r.detail);
  } catch {
    return null;
  }
  const parsed = parseWith(incidentSchema, {
    ...(typeof detail === "object" && detail !== null ? detail : {}),
    id: r.id,
    observer: r.observer,
    target: r.target,
    kind: r.kind,
    start: Number(r.start_ms),
    end: r.end_ms === null ? null : Number(r.end_ms),
    verdict: r.verdict,
    summary: r.summary,
  });
  return parsed.ok ? parsed.value : null;
}

/** The reading half of an IncidentStore, over either engine's read port. */
export function incidentReader(reads: SqlReads): Pick<IncidentStore, "incidentsBetween" | "openIncidents"> {
  return {
    async incidentsBetween(fromMs, toMs, limit) {
      const rows = await reads.all<IncidentRow>(
        `SELECT ${COLUMNS} FROM incidents WHERE start_ms <= ? AND (end_ms IS NULL OR end_ms >= ?) ORDER BY start_ms DESC, id DESC LIMIT ?`,
        [toMs, fromMs, limit + 1],
      );
      const incidents = rows.slice(0, limit).flatMap((r) => incidentOf(r) ?? []);
      return { incidents: incidents.reverse(), truncated: rows.length > limit };
    },
    async openIncidents(observer) {
      const rows = await reads.all<IncidentRow>(
        `SELECT ${COLUMNS} FROM incidents WHERE end_ms IS NULL AND observer = ? ORDER BY start_ms`,
        [observer],
      );
      return rows.flatMap((r) => incidentOf(r) ?? []);
    },
  };
}
