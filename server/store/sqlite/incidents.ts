// Incidents on SQLite (../incidents.ts): read on the read-only connections,
// written by the writer thread after the batches queued before them, so the
// event loop never waits on the database lock.
import { incidentParams, incidentReader, type IncidentStore, UPSERT_INCIDENT_SQL } from "../incidents.js";
import type { SqlReads } from "../read-pool.js";
import type { SqliteWrites } from "./statements.js";

/** The table: one row per incident; detail holds its methods, clients, evidence and peak as JSON. */
export const INCIDENTS_DDL = `
-- Incidents the health monitors opened and closed (server/health/, ../incidents.ts).
CREATE TABLE IF NOT EXISTS incidents (
  id       TEXT PRIMARY KEY,
  observer TEXT NOT NULL,     -- the server that saw it
  target   TEXT NOT NULL,
  kind     TEXT NOT NULL,     -- down | degraded
  start_ms INTEGER NOT NULL,
  end_ms   INTEGER,           -- NULL while open
  verdict  TEXT NOT NULL,
  summary  TEXT NOT NULL,
  detail   TEXT NOT NULL      -- JSON: methods, clients (public ids), evidence, peak
);
CREATE INDEX IF NOT EXISTS incidents_start ON incidents (start_ms);
`;

export function sqliteIncidents(reads: SqlReads, writes: SqliteWrites): IncidentStore {
  return {
    ...incidentReader(reads),
    async saveIncident(incident) {
      await writes.run([{ sql: UPSERT_INCIDENT_SQL, params: incidentParams(incident) }]);
    },
  };
}
