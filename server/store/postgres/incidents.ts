// Incidents on PostgreSQL (../incidents.ts): every server of the deployment
// writes its own and reads them all, through the store's connections.
import type postgres from "postgres";
import { incidentParams, incidentReader, type IncidentStore, UPSERT_INCIDENT_SQL } from "../incidents.js";
import type { SqlReads } from "../read-pool.js";
import { toPostgresPlaceholders } from "./dialect.js";

/** The table (as SQLite's, ../sqlite/incidents.ts), in TABLES_PG. */
export const INCIDENTS_TABLES_PG: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS incidents (
  id       text PRIMARY KEY,
  observer text NOT NULL,
  target   text NOT NULL,
  kind     text NOT NULL,
  start_ms bigint NOT NULL,
  end_ms   bigint,
  verdict  text NOT NULL,
  summary  text NOT NULL,
  detail   text NOT NULL
)`,
  "CREATE INDEX IF NOT EXISTS incidents_start ON incidents (start_ms)",
];

const UPSERT = toPostgresPlaceholders(UPSERT_INCIDENT_SQL);

export function postgresIncidents(
  reads: SqlReads,
  writeSql: postgres.Sql,
  guarded: <T>(run: () => Promise<T>) => Promise<T>,
): IncidentStore {
  return {
    ...incidentReader(reads),
    saveIncident: (incident) =>
      guarded(async () => {
        await writeSql.unsafe(UPSERT, incidentParams(incident) as postgres.ParameterOrJSON<never>[]);
      }),
  };
}
