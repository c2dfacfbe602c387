// What every SQLite writer of a batch does once it has the session: store the
// samples not stored yet as blocks (block-writer.ts), add those to the
// rollups, widen the session's span of t and raise its highest seq.
import type Database from "better-sqlite3";
import type { Sample } from "../../../shared/contract/index.js";
import { rawValues, rollupRowOf, spanOf, type CodeLookup, type LogicalRow } from "../logical-row.js";
import type { RollupBatch } from "../rollup-batch.js";
import { blockStore, type BlockItem } from "./block-writer.js";
import { packSample } from "./raw-layout.js";

/** A session row as the writers read it. */
export interface StoredSession {
  id: number;
  client: number;
  max_seq: number | null;
}

/** Widens a session's [first_t, last_t] to the samples stored (a duplicate's t is its first copy's, stored before). */
const WIDEN_SESSION_SPAN = `UPDATE sessions SET first_t = min(coalesce(first_t, @lo), @lo), last_t = max(coalesce(last_t, @hi), @hi) WHERE id = @id`;

/** Raises a session's highest stored seq (block-writer.ts looks up duplicates only at or below it). */
const RAISE_MAX_SEQ = "UPDATE sessions SET max_seq = max(coalesce(max_seq, -1), ?) WHERE id = ?";

const maxSeqOf = (samples: readonly { seq: number }[]): number => samples.reduce((m, s) => Math.max(s.seq, m), -1);

/** Wire samples as blockStore's items: the packed row, and the logical values and sample the rollups read. */
function blockItems(
  session: number,
  samples: readonly Sample[],
  codes: CodeLookup,
): BlockItem<{ v: LogicalRow; s: Sample }>[] {
  return samples.map((s) => {
    const v = rawValues(session, s, codes);
    return { row: packSample(v, s.method), extra: { v, s } };
  });
}

/** Returns write(session, samples, rollups): stores the samples not stored yet and returns them. */
export function sessionSamplesWriter(
  db: Database.Database,
  codes: CodeLookup,
): (session: StoredSession, samples: readonly Sample[], rollups: RollupBatch) => Sample[] {
  const storeBlocks = blockStore(db);
  const raiseMaxSeq = db.prepare(RAISE_MAX_SEQ);
  const widenSpan = db.prepare(WIDEN_SESSION_SPAN);
  return (session, samples, rollups) => {
    const stored = storeBlocks(session.id, session.max_seq, blockItems(session.id, samples, codes));
    for (const { extra } of stored)
      rollups.add(rollupRowOf(extra.v, session.client, extra.s.method, extra.s.target, codes));
    const newly = stored.map((item) => item.extra.s);
    const span = spanOf(newly);
    if (span !== null) widenSpan.run({ ...span, id: session.id });
    if (newly.length > 0) raiseMaxSeq.run(maxSeqOf(newly), session.id);
    return newly;
  };
}
