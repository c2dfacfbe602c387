// Loading generated months of samples fast (benchmarks, large tests): the
// rows insertBatch would write, with rollups held in memory until their
// bucket has closed.
import type Database from "better-sqlite3";
import type { SampleBatch } from "../../../shared/contract/index.js";
import { RollupBatch } from "../rollup-batch.js";
import type { Codes } from "./codes.js";
import { rollupWriter } from "./rollup-writer.js";
import { sessionSamplesWriter, type StoredSession } from "./session-samples.js";

/**
 * Bulk loading for generated data (benchmarks): batches must come in time
 * order; rollups are kept in memory until their bucket has closed and then
 * written once, so a sparse month costs one rollup write per bucket, not per
 * batch. `finish` writes what is still open. Same rows as insertBatch.
 */
export function bulkLoader(db: Database.Database, codes: Codes): { add(batch: SampleBatch): void; finish(): void } {
  const addSession = db.prepare(
    "INSERT OR IGNORE INTO sessions (session_key, client_id, client, label, user_agent, first_seen_ms) VALUES (?, ?, ?, ?, NULL, 0)",
  );
  const findSession = db.prepare<[string], StoredSession>(
    "SELECT id, client, max_seq FROM sessions WHERE session_key = ?",
  );
  const writeSamples = sessionSamplesWriter(db, codes);
  const writeRollups = rollupWriter(db);
  let open = new RollupBatch();
  const flushBefore = (watermarkMs: number) => writeRollups(open.takeClosed(watermarkMs));
  const add = db.transaction((batch: SampleBatch) => {
    addSession.run(batch.sessionId, batch.clientId, codes.clientOf(batch.clientId), batch.label ?? null);
    const session = findSession.get(batch.sessionId)!;
    const stored = writeSamples(session, batch.samples, open);
    flushBefore(stored.reduce((min, s) => Math.min(s.t, min), Infinity));
  });
  return {
    add,
    finish: db.transaction(() => {
      writeRollups(open);
      open = new RollupBatch();
    }),
  };
}
