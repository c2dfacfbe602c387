// Waits until a probe page's home server has stored every sample the page had
// emitted by now. The outbox delivers in order, so once the database holds as
// many rows as the page had emitted, all of those are in. (Waiting for an empty
// outbox does not work: a live page adds samples every few hundred ms.)
import Database from "better-sqlite3";
import { waitFor } from "./server-process.js";
import { loadSampleTables } from "./sample-table.js";

/** A page of any driver: Playwright's Page and testkit/engines.ts's EnginePage both evaluate an expression. */
export interface EvaluatingPage {
  evaluate<T>(expression: string): Promise<T>;
}

export async function waitForDelivered(page: EvaluatingPage, dbPath: string, timeoutMs = 20_000): Promise<void> {
  const { sent, sessionId } = await page.evaluate<{ sent: number; sessionId: string }>(
    "({ sent: window.tailprobe.sent, sessionId: window.tailprobe.sessionId })",
  );
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const count = loadSampleTables(db).prepare<[string], { n: number }>(
      "SELECT count(*) AS n FROM samples WHERE session = (SELECT id FROM sessions WHERE session_key = ?)",
    );
    // The TEMP tables are a snapshot: decoded again before each look.
    await waitFor(
      () => ((loadSampleTables(db), count.get(sessionId)?.n ?? 0) >= sent ? true : undefined),
      timeoutMs,
      `${sent} samples stored`,
    );
  } finally {
    db.close();
  }
}
