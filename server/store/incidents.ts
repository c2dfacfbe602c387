// Incidents as the health monitor opens and closes them (server/health/),
// kept by each engine in a table of its own (sqlite/incidents.ts,
// postgres/incidents.ts): one row per incident, rewritten as it changes.
import type { Incident } from "../../shared/contract/incidents.js";

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
