// The destructive operations behind the admin API, in chunks so a large
// delete never holds the event loop (or the write lock) for long.
import type Database from "better-sqlite3";

/** Rows deleted per chunk: a few ms of work on the event loop each. */
const DELETE_CHUNK_ROWS = 5000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function deleteInChunks(db: Database.Database, where: string, params: unknown[]): Promise<number> {
  const chunk = db.prepare(
    `DELETE FROM samples WHERE (session, seq) IN (SELECT session, seq FROM samples WHERE ${where} LIMIT ${DELETE_CHUNK_ROWS})`,
  );
  let total = 0;
  for (;;) {
    const n = chunk.run(...params).changes;
    total += n;
    if (n < DELETE_CHUNK_ROWS) return total;
    await yieldToLoop();
  }
}

/** Deletes every sample and session of one client. */
export async function deleteClientData(db: Database.Database, clientId: string): Promise<{ samples: number; sessions: number }> {
  const samples = await deleteInChunks(db, "session IN (SELECT id FROM sessions WHERE client_id = ?)", [clientId]);
  const sessions = db.prepare("DELETE FROM sessions WHERE client_id = ?").run(clientId).changes;
  return { samples, sessions };
}

/** Deletes every sample sent before `beforeMs` (epoch ms). */
export function pruneSamples(db: Database.Database, beforeMs: number): Promise<number> {
  return deleteInChunks(db, "t < ?", [beforeMs]);
}
