// Retention on SQLite (../retention.ts says what is kept): old rows go in
// small batches, one batch per turn of the event loop, so pruning a month
// never holds up an echo for long.
import type Database from "better-sqlite3";
import { DAY_MS, PRUNE_INTERVAL_MS, type Retention, type RetentionOptions } from "../retention.js";
import { LEVEL_MS } from "../rollup-class.js";

/** Rows deleted per step: a few ms of work. */
export const PRUNE_BATCH_ROWS = 2000;
/** Raw blocks deleted per step (up to a batch of samples each). */
export const PRUNE_BATCH_BLOCKS = 200;
/** Pause between two full batches (ms), leaving the event loop to others. */
const PRUNE_PAUSE_MS = 20;

export function startRetention(
  db: Database.Database,
  options: RetentionOptions,
  nowMs: () => number,
  onPruned: (beforeMs: number) => void = () => {},
): Retention {
  const rawCutoff = () => nowMs() - options.rawDays * DAY_MS;
  const rollupCutoff = () => nowMs() - options.rollupDays * DAY_MS;
  // Whole blocks: a block's bucket ends at or before the cutoff (the bucket the cutoff falls in stays until it has passed).
  // The bound is on start_ms itself, so the key's range is searched: `start_ms + width <= ?` would scan every block, BLOBs and all.
  const deleteOldBlocks = db.prepare<[number], { n: number }>(
    `DELETE FROM raw_blocks WHERE (start_ms, session, seq0) IN
       (SELECT start_ms, session, seq0 FROM raw_blocks WHERE start_ms <= ? ORDER BY start_ms LIMIT ${PRUNE_BATCH_BLOCKS})
     RETURNING n`,
  );
  /** Deletes a batch of old blocks: the samples they held, and whether the batch was full. */
  const deleteRaw = (cutoffMs: number): [number, boolean] => {
    const blocks = deleteOldBlocks.all(cutoffMs - LEVEL_MS[0]);
    return [blocks.reduce((sum, b) => sum + b.n, 0), blocks.length === PRUNE_BATCH_BLOCKS];
  };
  // One key range per (level, client, class): the rollups' key order (schema.ts), bounded on start_ms itself.
  const deleteRollupsOf = db.prepare(
    `DELETE FROM rollups WHERE (level, client, class, start_ms, series) IN
       (SELECT level, client, class, start_ms, series FROM rollups WHERE level = ? AND client = ? AND class = ? AND start_ms <= ? LIMIT ${PRUNE_BATCH_ROWS})`,
  );
  // The next (client, class) run of a level after a given one, and its oldest bucket (start_ms follows them in the key).
  const nextRun = db.prepare<[number, number, number], { client: number; class: number; start_ms: number }>(
    "SELECT client, class, start_ms FROM rollups WHERE level = ? AND (client, class) > (?, ?) ORDER BY client, class, start_ms LIMIT 1",
  );
  /**
   * Deletes up to a batch of old rollups of a level. It seeks from one
   * (client, class) run to the next that exists and deletes only in runs whose
   * oldest bucket is old enough: walking every client × class instead (48 classes)
   * took ~1.5 s of the writer thread a pass at 2,000 clients, ingest waiting behind it.
   */
  const deleteRollups = {
    run(level: number, widthMs: number, cutoffMs: number): { changes: number } {
      const before = cutoffMs - widthMs;
      let changes = 0;
      let client = -1;
      let cls = -1;
      for (let run = nextRun.get(level, client, cls); run !== undefined; run = nextRun.get(level, client, cls)) {
        ({ client, class: cls } = run);
        if (run.start_ms > before) continue;
        changes += deleteRollupsOf.run(level, client, cls, before).changes;
        if (changes >= PRUNE_BATCH_ROWS) return { changes };
      }
      return { changes };
    },
  };
  // A stress-test run whose raw samples are gone has nothing left to answer with.
  const deleteOldRuns = db.prepare(
    `DELETE FROM stress_runs WHERE id IN (SELECT id FROM stress_runs WHERE start_ms < ? LIMIT ${PRUNE_BATCH_ROWS})`,
  );
  const readPruned = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'raw_pruned_before_ms'");
  const writePruned = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('raw_pruned_before_ms', ?)");
  let prunedBeforeMs = Number(readPruned.get()?.value ?? 0);
  let passCutoff = 0;
  /** Each step deletes a batch: what it deleted (samples, rollup rows) and whether there may be more. */
  const rollupStep = (level: number, widthMs: number, cutoffMs: () => number) => (): [number, boolean] => {
    const { changes } = deleteRollups.run(level, widthMs, cutoffMs());
    return [changes, changes >= PRUNE_BATCH_ROWS];
  };
  const steps: (() => [number, boolean])[] = [
    () => deleteRaw(passCutoff),
    () => {
      const n = deleteOldRuns.run(passCutoff).changes;
      return [0, n >= PRUNE_BATCH_ROWS];
    },
    rollupStep(0, LEVEL_MS[0], () => passCutoff),
    ...LEVEL_MS.slice(1).map((widthMs, i) => rollupStep(i + 1, widthMs, rollupCutoff)),
  ];

  let stopped = false;
  let running: Promise<number> | null = null;
  const pause = () => new Promise((r) => setTimeout(r, PRUNE_PAUSE_MS));
  async function pass(): Promise<number> {
    let deleted = 0;
    passCutoff = rawCutoff();
    for (const [k, step] of steps.entries()) {
      if (k === 2 && passCutoff > prunedBeforeMs) {
        // Every raw sample before the cutoff is gone: queries before it read rollups.
        prunedBeforeMs = passCutoff;
        writePruned.run(String(passCutoff));
        onPruned(passCutoff);
      }
      for (;;) {
        if (stopped) return deleted;
        const [n, more] = step();
        deleted += n;
        if (!more) break;
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
