// Group commit on SQLite: the batches that queued while the last write ran
// are written in one transaction, each in a savepoint of its own, raw samples
// (session-samples.ts) and the rollups they add to together, so a query never
// sees one without the other. Redelivery adds nothing: only samples actually
// stored count in the rollups.
import type Database from "better-sqlite3";
import type { IngestResult, SampleBatch } from "../../../shared/contract/index.js";
import { SessionOwnerError } from "../errors.js";
import { toUs } from "../logical-row.js";
import { RollupBatch } from "../rollup-batch.js";
import type { IngestMeta } from "../store.js";
import type { Codes } from "./codes.js";
import { rollupWriter } from "./rollup-writer.js";
import { sessionSamplesWriter, type StoredSession } from "./session-samples.js";

export interface GroupItem {
  batch: SampleBatch;
  meta: IngestMeta;
}

/**
 * Writes the batches that queued while the last write ran in one transaction
 * (group commit): each batch in a savepoint of its own, so one refused batch
 * leaves the others stored, and their rollups merged in memory and written
 * once, so a rollup row many clients add to (the all-clients rows) is read,
 * merged and rewritten once per group instead of once per batch. Each result
 * is final only after the group commits, and answers are sent after that.
 */
export function batchWriter(
  db: Database.Database,
  codes: Codes,
): (items: readonly GroupItem[]) => (IngestResult | Error)[] {
  const findSession = db.prepare<[string], StoredSession & { client_id: string }>(
    "SELECT id, client_id, client, max_seq FROM sessions WHERE session_key = ?",
  );
  const addSession = db.prepare(
    "INSERT INTO sessions (session_key, client_id, client, label, user_agent, first_seen_ms) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const writeSamples = sessionSamplesWriter(db, codes);
  const updateLabel = db.prepare("UPDATE sessions SET label = ? WHERE id = ? AND label IS NOT ?");
  // The first resolution a session reports is kept: it cannot change within a page's life.
  const setTimerResolution = db.prepare(
    "UPDATE sessions SET timer_resolution_us = ? WHERE id = ? AND timer_resolution_us IS NULL",
  );
  // Likewise the engine the page ran in.
  const setEngine = db.prepare("UPDATE sessions SET engine = ? WHERE id = ? AND engine IS NULL");
  const writeRollups = rollupWriter(db);

  /** One batch's rows, its rollups gathered into `rollups`; run as a savepoint inside the group's transaction. */
  const one = db.transaction((batch: SampleBatch, meta: IngestMeta, rollups: RollupBatch): IngestResult => {
    let session = findSession.get(batch.sessionId);
    if (session === undefined) {
      const client = codes.clientOf(batch.clientId);
      const info = addSession.run(
        batch.sessionId,
        batch.clientId,
        client,
        batch.label ?? null,
        meta.userAgent,
        meta.receivedAtMs,
      );
      session = { id: Number(info.lastInsertRowid), client_id: batch.clientId, client, max_seq: null };
    } else if (session.client_id !== batch.clientId) {
      throw new SessionOwnerError("sessionId belongs to another clientId");
    }
    if (batch.label !== undefined) updateLabel.run(batch.label, session.id, batch.label);
    if (batch.timerResolutionMs !== undefined) setTimerResolution.run(toUs(batch.timerResolutionMs), session.id);
    if (batch.engine !== undefined) setEngine.run(batch.engine, session.id);
    const stored = writeSamples(session, batch.samples, rollups);
    return { accepted: stored.length, duplicates: batch.samples.length - stored.length };
  });

  const group = db.transaction((items: readonly GroupItem[]): (IngestResult | Error)[] => {
    const shared = new RollupBatch();
    const results = items.map(({ batch, meta }): IngestResult | Error => {
      const mine = new RollupBatch();
      try {
        const r = one(batch, meta, mine);
        shared.mergeFrom(mine);
        return r;
      } catch (err) {
        // Its savepoint is rolled back, codes it added with it; the other batches go on.
        codes.reload();
        return err instanceof Error ? err : new Error(String(err));
      }
    });
    writeRollups(shared);
    return results;
  });

  return (items) => {
    try {
      return group.immediate(items);
    } catch (err) {
      // The group's commit failed (a full disk, a lock held too long): no batch of it is stored.
      codes.reload();
      const e = err instanceof Error ? err : new Error(String(err));
      return items.map(() => e);
    }
  };
}
