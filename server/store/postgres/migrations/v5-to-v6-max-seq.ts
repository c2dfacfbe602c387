// Version 5 → 6: a sample's identity becomes (session, seq), as the API
// promises, instead of (session, seq, t): each session keeps its highest
// stored seq (max_seq), so the writer looks a batch up only when it goes back
// to a stored seq (writer.ts), backfilled once here. Samples a version 5
// writer stored twice (one seq at two times) stay as they were stored and
// counted: the rollups hold both.
import type { PgStep } from "./step.js";

export const v5ToV6: PgStep = {
  from: 5,
  to: 6,
  async run(tx, log) {
    log("tailprobe: upgrading the PostgreSQL schema 5 → 6: each session's highest stored seq");
    await tx`ALTER TABLE sessions ADD COLUMN IF NOT EXISTS max_seq bigint`;
    await tx`UPDATE sessions s SET max_seq = r.hi
      FROM (SELECT session, max(seq) AS hi FROM raw_samples GROUP BY session) r
      WHERE r.session = s.id`;
  },
};
