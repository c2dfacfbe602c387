// Creating the PostgreSQL schema, and upgrading one written by an older
// tailprobe, in one transaction under the schema's advisory lock, so servers
// starting together wait their turn: every table created if missing (a
// table added beside them needs no step), then each version's step in order.
import type postgres from "postgres";
import { SAMPLES_VIEW_PG, SCHEMA_LOCK_KEY, SCHEMA_VERSION, TABLES_PG } from "../schema.js";
import type { PgStep } from "./step.js";
import { v2ToV3 } from "./v2-to-v3-session-spans.js";
import { v3ToV4 } from "./v3-to-v4-totals.js";
import { v4ToV5 } from "./v4-to-v5-compact-rollups.js";
import { v5ToV6 } from "./v5-to-v6-max-seq.js";
import { v6ToV7 } from "./v6-to-v7-session-engine.js";
import { v7ToV8 } from "./v7-to-v8-server-time.js";
import { v8ToV9 } from "./v8-to-v9-stress.js";

/** Every upgrade step, by the version it starts from. */
export const PG_STEPS: readonly PgStep[] = [v2ToV3, v3ToV4, v4ToV5, v5ToV6, v6ToV7, v7ToV8, v8ToV9];

const setVersion = (tx: postgres.TransactionSql, version: number) =>
  tx`INSERT INTO meta (key, value) VALUES ('schema_version', ${String(version)}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

/** Creates or upgrades the schema; servers starting together wait their turn on the advisory lock. */
export async function migratePostgres(sql: postgres.Sql, log: (line: string) => void): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY.toString()}::bigint)`;
    const [row] = await tx`SELECT to_regclass('meta') IS NOT NULL AS present`;
    let version = row!.present
      ? Number((await tx`SELECT value FROM meta WHERE key = 'schema_version'`)[0]?.value ?? 0)
      : 0;
    if (version > SCHEMA_VERSION)
      throw new Error(
        `the database has schema version ${version}, newer than this tailprobe (${SCHEMA_VERSION}): upgrade tailprobe`,
      );
    for (const ddl of TABLES_PG) await tx.unsafe(ddl);
    if (version === SCHEMA_VERSION) return;
    if (version === 0) {
      log(`tailprobe: creating the PostgreSQL schema (version ${SCHEMA_VERSION})`);
      version = SCHEMA_VERSION;
    }
    while (version < SCHEMA_VERSION) {
      const step = PG_STEPS.find((s) => s.from === version);
      if (step === undefined)
        throw new Error(`the database has schema version ${version}, which this tailprobe cannot upgrade`);
      await step.run(tx, log);
      version = step.to;
    }
    await tx.unsafe(SAMPLES_VIEW_PG);
    await setVersion(tx, SCHEMA_VERSION);
  });
}
