// Creating a new database, and upgrading one written by an older tailprobe
// in place: each step (STEPS, one file each, named by the versions it joins)
// in one transaction with progress lines and nothing lost; a crash midway
// leaves the file at the version before the step, and the next start
// resumes from there. Then every table is created if missing (schema.ts
// DDL), so a table added beside them needs no step.
import type Database from "better-sqlite3";
import { DDL, SCHEMA_VERSION } from "../schema.js";
import { MIGRATE_CHUNK_ROWS } from "./progress.js";
import type { SqliteStep } from "./step.js";
import { setVersion } from "./step.js";
import { v1ToV6 } from "./v1-to-v6-codes.js";
import { v2ToV3 } from "./v2-to-v3-time-key.js";
import { v3ToV4 } from "./v3-to-v4-totals.js";
import { v4ToV5 } from "./v4-to-v5-packed.js";
import { v5ToV6 } from "./v5-to-v6-compact-rollups.js";
import { v6ToV7 } from "./v6-to-v7-blocks.js";
import { v7ToV8 } from "./v7-to-v8-seq-index.js";
import { v8ToV9 } from "./v8-to-v9-session-engine.js";
import { v9ToV10 } from "./v9-to-v10-server-time.js";
import { v10ToV11 } from "./v10-to-v11-stress.js";

/** Every upgrade step, by the version it starts from. */
export const SQLITE_STEPS: readonly SqliteStep[] = [
  v1ToV6,
  v2ToV3,
  v3ToV4,
  v4ToV5,
  v5ToV6,
  v6ToV7,
  v7ToV8,
  v8ToV9,
  v9ToV10,
  v10ToV11,
];

function schemaVersion(db: Database.Database): number | null {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (hasMeta === undefined) return null;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  return row === undefined ? null : Number(row.value);
}

/**
 * Brings the file to SCHEMA_VERSION; `log` hears each step's progress lines.
 * chunkRows: rows a step reads at a time (tests make it small to cross many pages).
 */
export function migrate(
  db: Database.Database,
  log: (line: string) => void = () => {},
  chunkRows = MIGRATE_CHUNK_ROWS,
): void {
  const first = schemaVersion(db);
  if (first !== null && first > SCHEMA_VERSION)
    throw new Error(
      `database schema version ${first} is newer than this tailprobe understands (${SCHEMA_VERSION}); upgrade tailprobe`,
    );
  for (let version = first; version !== null && version < SCHEMA_VERSION; ) {
    const from = version;
    const step = SQLITE_STEPS.find((s) => s.from === from);
    if (step === undefined) throw new Error(`database schema version ${from} cannot be upgraded by this tailprobe`);
    step.run(db, { log, chunkRows });
    version = schemaVersion(db);
    if (version !== step.to)
      throw new Error(`the upgrade from version ${from} left version ${version}, not ${step.to}`);
  }
  db.exec(DDL);
  setVersion(db, SCHEMA_VERSION);
  // After any upgrade (one interrupted after its copy step resumes as a later version): compact() checks the free space.
  if (first !== null && first < SCHEMA_VERSION) compact(db, log);
}

/**
 * An upgrade writes the new tables beside the old ones and then drops the
 * old: their pages stay in the file as free pages (a 10 M-sample month:
 * 1,153 MB, of which 593 free). VACUUM rewrites the file without them, once
 * (5 s there, leaving 499 MB); below a tenth free it is skipped.
 */
function compact(db: Database.Database, log: (line: string) => void): void {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const free = (db.pragma("freelist_count", { simple: true }) as number) * pageSize;
  const total = (db.pragma("page_count", { simple: true }) as number) * pageSize;
  if (free < total / 10) return;
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  log(`compacting the database file after the upgrade: ${mb(total)} MB, of which ${mb(free)} MB free`);
  db.exec("VACUUM");
  db.pragma("wal_checkpoint(TRUNCATE)");
  log(`compacted the database file: ${mb((db.pragma("page_count", { simple: true }) as number) * pageSize)} MB`);
}
