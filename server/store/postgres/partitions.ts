// Raw samples partitioned by UTC day (schema.ts): retention drops whole
// partitions; writers and the refresh create the days they need, each under
// the schema's advisory lock.
import type postgres from "postgres";
import { DAY_MS } from "../retention.js";
import { SCHEMA_LOCK_KEY } from "./schema.js";

/** Partition of the day holding t (UTC days, epoch ms bounds). */
export const dayOf = (t: number): number => Math.floor(t / DAY_MS) * DAY_MS;
export const partitionName = (dayMs: number): string =>
  `raw_samples_${new Date(dayMs).toISOString().slice(0, 10).replace(/-/g, "")}`;

/**
 * Creates the day partitions that are missing, each in a short transaction of
 * its own under the advisory lock (two servers creating the same day would
 * otherwise collide in the catalog).
 */
export async function ensurePartitions(sql: postgres.Sql, days: Iterable<number>, known: Set<number>): Promise<void> {
  for (const day of days) {
    if (known.has(day)) continue;
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY.toString()}::bigint)`;
      await tx.unsafe(
        `CREATE TABLE IF NOT EXISTS ${partitionName(day)} PARTITION OF raw_samples FOR VALUES FROM (${day}) TO (${day + DAY_MS})`,
      );
    });
    known.add(day);
  }
}

/** The day partitions that exist now (start epoch ms), read from the catalog. */
export async function existingPartitions(sql: postgres.Sql): Promise<number[]> {
  const rows =
    await sql`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'raw_samples'::regclass`;
  return rows
    .map((r) => /^raw_samples_(\d{4})(\d{2})(\d{2})$/.exec(r.relname as string))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
    .sort((a, b) => a - b);
}
