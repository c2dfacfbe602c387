// Stress-test runs on PostgreSQL (../stress-runs.ts): the report's upsert on
// a write connection (atomic with its WHERE: two servers taking reports of
// one run keep the newer), reads through the read port.
import type postgres from "postgres";
import type { SqlReads } from "../read-pool.js";
import {
  readStressRuns,
  reportingSession,
  type StressRunStore,
  UPSERT_REPORT_SQL,
  unchangedVerdict,
  upsertParams,
} from "../stress-runs.js";
import { toPostgresPlaceholders } from "./dialect.js";

export function postgresStressRuns(
  sql: postgres.Sql,
  pool: SqlReads,
  guarded: <T>(run: () => Promise<T>) => Promise<T>,
): StressRunStore {
  return {
    async report(r) {
      const session = await reportingSession(pool, r);
      if (typeof session !== "number") return session;
      const done = await guarded(() => sql.unsafe(toPostgresPlaceholders(UPSERT_REPORT_SQL), upsertParams(r, session)));
      return done.count > 0 ? "stored" : unchangedVerdict(pool, r.run, session);
    },
    runs: (fromMs, toMs, clientId) => readStressRuns(pool, fromMs, toMs, clientId),
  };
}
