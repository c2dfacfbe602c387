// The store, whatever its engine: what the server asks of its database. One
// interface, two adapters (sqlite/store.ts, postgres/store.ts), chosen by
// open.ts. The store writes and keeps samples; it does not answer queries:
// it lends its read port (readPool, openPageReader) to the query layer,
// which the server composes over it (server/query/with-queries.ts).
// ingest/read-batch.ts is the one module of an earlier step it names: the pure
// reader of a report body (shared/ only), which the SQLite writer thread must
// load itself, since a function cannot be posted to a thread.
import type { IngestResult, SampleBatch } from "../../shared/contract/index.js";
import type { BodyIngest, SampleRules } from "../ingest/read-batch.js";
import type { IncidentStore } from "./incidents.js";
import type { AlertStateStore } from "./alert-state.js";
import type { PageReader } from "./page-reader.js";
import type { ReadPool } from "./read-pool.js";
import type { StressRunStore } from "./stress-runs.js";

export interface IngestMeta {
  userAgent: string | null;
  receivedAtMs: number;
}

export interface DeletedClient {
  samples: number;
  sessions: number;
}

export interface Store {
  /**
   * Stores a batch in one transaction, raw rows and rollups together; settles
   * after the commit. Rejects with SessionOwnerError, or StorageError carrying
   * the engine's code (SQLITE_FULL, SQLITE_BUSY, PG_UNREACHABLE, …; errors.ts).
   */
  insertBatch(batch: SampleBatch, meta: IngestMeta): Promise<IngestResult>;
  /**
   * A POST /api/samples body, read under the rules (server/ingest/read-batch.ts)
   * and stored as insertBatch does, or refused with nothing stored. The
   * threaded SQLite store reads it in its writer thread, off the event loop.
   */
  ingestBody(body: Uint8Array, rules: SampleRules, meta: IngestMeta): Promise<BodyIngest>;
  /** The read port every query reads through: paced SELECTs and the raw samples (read-pool.ts). */
  readonly readPool: ReadPool;
  /** Pages of raw samples in time order on a connection of their own (export, forensics). */
  openPageReader(): PageReader;
  /** Stress-test runs as their pages reported them (stress-runs.ts). */
  readonly stressRuns: StressRunStore;
  /** Epoch ms before which raw samples have been pruned (--raw-days): older ranges answer from rollups only. */
  rawKeptFromMs(): number;
  /** Runs retention now instead of at its next interval; resolves with the rows deleted. */
  pruneNow(): Promise<number>;
  /** Deletes every sample, rollup share and session of one client (admin API); resolves with the counts. */
  deleteClient(clientId: string): Promise<DeletedClient>;
  /** "sqlite" (a file) or "postgres" (a URL), as --db chose. */
  readonly kind: "sqlite" | "postgres";
  /** What --db named, for logs: the file, or the URL with its password replaced by ***. */
  readonly location: string;
  /** The key public client ids derive from (kept in meta: the same for every server on one database). */
  readonly publicIdKey: Buffer;
  /** Every stored clientId, of every server writing to this database (PostgreSQL: as of the last refresh, at most a second old). */
  storedClientIds(): string[];
  /** The targets every server on this database measures (PostgreSQL; SQLite: one process, none beyond its own). */
  deploymentTargets(): readonly string[];
  /** Makes this server's targets known to the other servers on the database (idempotent; SQLite: nothing to do). */
  announceTargets(targets: readonly string[]): void;
  /** The health monitors' incidents (incidents.ts). */
  readonly incidents: IncidentStore;
  /** What alerts fire, since when, and what each receiver was sent (server/alerts/; alert-state.ts). */
  readonly alertState: AlertStateStore;
  /** Stops retention and the writer (after the batches already posted are committed), closes every connection. */
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Progress of a schema upgrade, one line at a time. */
  log?: (line: string) => void;
  /** Days raw samples are kept (--raw-days). */
  rawDays?: number;
  /** Days hour and day rollups are kept (--rollup-days). */
  rollupDays?: number;
  nowMs?: () => number;
}
