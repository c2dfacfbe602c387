// Stress-test runs on SQLite (../stress-runs.ts): reads through the read
// port, the report's upsert on the writer's connection (statements.ts), after
// the batches queued before it.
import type { SqlReads } from "../read-pool.js";
import {
  readStressRuns,
  reportingSession,
  type StressRunStore,
  UPSERT_REPORT_SQL,
  unchangedVerdict,
  upsertParams,
} from "../stress-runs.js";
import type { SqliteWrites } from "./statements.js";

export function sqliteStressRuns(pool: SqlReads, writes: SqliteWrites): StressRunStore {
  return {
    async report(r) {
      const session = await reportingSession(pool, r);
      if (typeof session !== "number") return session;
      const [done] = await writes.run([{ sql: UPSERT_REPORT_SQL, params: upsertParams(r, session) }]);
      return done!.changes > 0 ? "stored" : unchangedVerdict(pool, r.run, session);
    },
    runs: (fromMs, toMs, clientId) => readStressRuns(pool, fromMs, toMs, clientId),
  };
}
