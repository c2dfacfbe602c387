// Bounded storage: raw samples are kept for rawDays, 5-minute rollups as long
// (a range without raw samples is answered at hour resolution), hour and day
// rollups for rollupDays. Old rows go in small batches, one batch per turn of
// the event loop, so pruning a month never holds up an echo for long.
import type Database from "better-sqlite3";
import { ANY_CLASS, ANY_CLIENT } from "./rollup-batch.js";
import { CLASS_COUNT, LEVEL_MS } from "./rollup-class.js";

export const DAY_MS = 86_400_000;
export const RAW_DAYS_DEFAULT = 30;
export const ROLLUP_DAYS_DEFAULT = 400;
export const RETENTION_DAYS_MIN = 1;
export const RETENTION_DAYS_MAX = 36_500;
/** Rows deleted per step: a few ms of work. */
export const PRUNE_BATCH_ROWS = 2000;
/** How often retention looks for old rows (ms). */
export const PRUNE_INTERVAL_MS = 60_000;
/** Pause between two full batches (ms), leaving the event loop to others. */
const PRUNE_PAUSE_MS = 20;

export interface RetentionOptions {
  rawDays: number;
  rollupDays: number;
}

export interface Retention {
  /** Epoch ms before which raw samples have been pruned (0 until a pass has run); kept in meta across restarts. */
  rawKeptFromMs(): number;
  /** One pass now (tests); resolves when nothing older is left. */
  pruneNow(): Promise<number>;
  stop(): void;
}

export function startRetention(
  db: Database.Database,
  options: RetentionOptions,
  nowMs: () => number,
  onPruned: (beforeMs: number) => void = () => {},
): Retention {
  const rawCutoff = () => nowMs() - options.rawDays * DAY_MS;
  const rollupCutoff = () => nowMs() - options.rollupDays * DAY_MS;
  const deleteRaw = db.prepare(
    `DELETE FROM raw_samples WHERE (t, session, seq) IN (SELECT t, session, seq FROM raw_samples WHERE t < ? ORDER BY t LIMIT ${PRUNE_BATCH_ROWS})`,
  );
  // One key range per (level, client, class): the rollups' key order (schema.ts).
  const deleteRollupsOf = db.prepare(
    `DELETE FROM rollups WHERE (level, client, class, start_ms, series) IN
       (SELECT level, client, class, start_ms, series FROM rollups WHERE level = ? AND client = ? AND class = ? AND start_ms + ? <= ? LIMIT ${PRUNE_BATCH_ROWS})`,
  );
  const listClients = db.prepare<[], { id: number }>("SELECT id FROM clients");
  /** Deletes up to a batch of old rollups of a level, walking every (client, class) range. */
  const deleteRollups = {
    run(level: number, widthMs: number, cutoffMs: number): { changes: number } {
      let changes = 0;
      const clients = [ANY_CLIENT, ...listClients.all().map((c) => c.id)];
      for (const client of clients)
        for (const cls of client === ANY_CLIENT ? [ANY_CLASS] : Array.from({ length: CLASS_COUNT }, (_, c) => c)) {
          changes += deleteRollupsOf.run(level, client, cls, widthMs, cutoffMs).changes;
          if (changes >= PRUNE_BATCH_ROWS) return { changes };
        }
      return { changes };
    },
  };
  const readPruned = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'raw_pruned_before_ms'");
  const writePruned = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('raw_pruned_before_ms', ?)");
  let prunedBeforeMs = Number(readPruned.get()?.value ?? 0);
  let passCutoff = 0;
  const steps: (() => number)[] = [
    () => deleteRaw.run(passCutoff).changes,
    () => deleteRollups.run(0, LEVEL_MS[0], passCutoff).changes,
    ...LEVEL_MS.slice(1).map((widthMs, i) => () => deleteRollups.run(i + 1, widthMs, rollupCutoff()).changes),
  ];

  let stopped = false;
  let running: Promise<number> | null = null;
  const pause = () => new Promise((r) => setTimeout(r, PRUNE_PAUSE_MS));
  async function pass(): Promise<number> {
    let deleted = 0;
    passCutoff = rawCutoff();
    for (const [k, step] of steps.entries()) {
      if (k === 1 && passCutoff > prunedBeforeMs) {
        // Every raw sample before the cutoff is gone: queries before it read rollups.
        prunedBeforeMs = passCutoff;
        writePruned.run(String(passCutoff));
        onPruned(passCutoff);
      }
      for (;;) {
        if (stopped) return deleted;
        const n = step();
        deleted += n;
        if (n < PRUNE_BATCH_ROWS) break;
        await pause();
      }
    }
    return deleted;
  }
  const pruneNow = () => (running ??= pass().finally(() => (running = null)));
  const timer = setInterval(() => void pruneNow(), PRUNE_INTERVAL_MS);
  timer.unref();
  return {
    rawKeptFromMs: () => prunedBeforeMs,
    pruneNow,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
