// Retention on PostgreSQL: raw samples older than rawDays go by whole day
// partitions (DROP TABLE: no row-by-row delete, no bloat), 5-minute rollups
// with them, hour and day rollups after rollupDays. Any server may run a
// pass; the advisory lock serialises partition drops, and the time before
// which raw samples are gone is kept in meta, where every server reads it.
import type postgres from "postgres";
import { DAY_MS, PRUNE_INTERVAL_MS, type Retention, type RetentionOptions } from "../retention.js";
import { LEVEL_MS } from "../rollup-class.js";
import { dayOf, existingPartitions, partitionName } from "./partitions.js";
import { SCHEMA_LOCK_KEY } from "./schema.js";

const PRUNED_KEY = "raw_pruned_before_ms";

export async function readPrunedBeforeMs(sql: postgres.Sql): Promise<number> {
  const [row] = await sql`SELECT value FROM meta WHERE key = ${PRUNED_KEY}`;
  return Number(row?.value ?? 0);
}

/**
 * @param partitions the writer's set of known day partitions: a dropped day is removed from it.
 * @param onError a failed background pass (database away) is reported, and retried at the next interval.
 */
export function startPostgresRetention(
  sql: postgres.Sql,
  options: RetentionOptions,
  nowMs: () => number,
  partitions: Set<number>,
  prunedAtStartMs: number,
  onError: (err: unknown) => void,
): Retention {
  let prunedBeforeMs = prunedAtStartMs;
  async function pass(): Promise<number> {
    let deleted = 0;
    // Whole days only: raw samples are kept up to a day longer than rawDays.
    const rawCutoff = dayOf(nowMs() - options.rawDays * DAY_MS);
    const rollupCutoff = nowMs() - options.rollupDays * DAY_MS;
    for (const day of await existingPartitions(sql)) {
      if (day + DAY_MS > rawCutoff) continue;
      deleted += await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY.toString()}::bigint)`;
        const name = partitionName(day);
        const [present] = await tx`SELECT to_regclass(${name}) IS NOT NULL AS present`;
        if (present?.present !== true) return 0;
        const [n] = await tx.unsafe(`SELECT count(*) AS n FROM ${name}`);
        await tx.unsafe(`DROP TABLE ${name}`);
        return Number(n?.n ?? 0);
      });
      partitions.delete(day);
    }
    if (rawCutoff > prunedBeforeMs) {
      await sql`INSERT INTO meta (key, value) VALUES (${PRUNED_KEY}, ${String(rawCutoff)})
        ON CONFLICT (key) DO UPDATE SET value = GREATEST(meta.value::bigint, excluded.value::bigint)::text`;
    }
    prunedBeforeMs = Math.max(prunedBeforeMs, await readPrunedBeforeMs(sql));
    // A stress-test run whose raw samples are gone has nothing left to answer with.
    await sql`DELETE FROM stress_runs WHERE start_ms < ${prunedBeforeMs}`;
    const dropped = await sql`DELETE FROM rollups WHERE level = 0 AND start_ms + ${LEVEL_MS[0]} <= ${prunedBeforeMs}`;
    deleted += dropped.count;
    for (let level = 1; level < LEVEL_MS.length; level++) {
      const r =
        await sql`DELETE FROM rollups WHERE level = ${level} AND start_ms + ${LEVEL_MS[level]!} <= ${rollupCutoff}`;
      deleted += r.count;
    }
    return deleted;
  }
  let running: Promise<number> | null = null;
  const pruneNow = () => (running ??= pass().finally(() => (running = null)));
  const timer = setInterval(() => void pruneNow().catch(onError), PRUNE_INTERVAL_MS);
  timer.unref();
  return {
    rawKeptFromMs: () => prunedBeforeMs,
    pruneNow,
    stop: () => clearInterval(timer),
  };
}
