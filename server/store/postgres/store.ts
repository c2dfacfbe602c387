// The PostgreSQL store: the Store (../store.ts) for any number of tailprobe
// servers on one database. Its read port is a PostgreSQL ReadPool, over which
// the server runs the same query layer as on SQLite; ingest, retention and the
// admin delete are PostgreSQL's own.
import { randomBytes } from "node:crypto";
import { ingestHere } from "../../ingest/read-batch.js";
import { DAY_MS, retentionOf } from "../retention.js";
import type { Store, StoreOptions } from "../store.js";
import { deleteClientPostgres } from "./admin.js";
import { postgresAlertState } from "./alert-state.js";
import { PgCodes } from "./codes.js";
import { postgresIncidents } from "./incidents.js";
import { connect, READ_CONNECTIONS_MAX, WRITE_CONNECTIONS_MAX } from "./connect.js";
import { redactUrl, scrubber } from "./dialect.js";
import { asStorageError } from "./errors.js";
import { migratePostgres } from "./migrations/migrate.js";
import { postgresPageReader } from "./page-reader.js";
import { dayOf, ensurePartitions, existingPartitions } from "./partitions.js";
import { postgresReadPool } from "./read-pool.js";
import { readPrunedBeforeMs, startPostgresRetention } from "./retention.js";
import { postgresStressRuns } from "./stress-runs.js";
import { postgresWriter } from "./writer.js";

/**
 * How often a server re-reads what other servers on the database change
 * (ms): the stored clientIds (public ids), the retention watermark, and the
 * day partitions created ahead (today's and tomorrow's).
 */
export const DEPLOYMENT_REFRESH_MS = 1000;
/** Bytes of the public-id HMAC key, as SQLite's (../sqlite/meta.ts). */
const PUBLIC_ID_KEY_BYTES = 32;
/** Budget for the pools to finish their queries at close (s). */
const CLOSE_TIMEOUT_S = 5;

export async function openPostgresStore(url: string, opts: StoreOptions = {}): Promise<Store> {
  const log = opts.log ?? (() => {});
  const scrub = scrubber(url);
  const nowMs = opts.nowMs ?? Date.now;
  const writeSql = connect(url, WRITE_CONNECTIONS_MAX);
  const readSql = connect(url, READ_CONNECTIONS_MAX);
  const wrap = (err: unknown) => asStorageError(err, scrub);
  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw wrap(err);
    }
  };
  try {
    await migratePostgres(writeSql, log);
  } catch (err) {
    await Promise.all([writeSql.end({ timeout: 0 }), readSql.end({ timeout: 0 })]);
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(scrub(`cannot open ${redactUrl(url)}: ${message}`), { cause: wrap(err) });
  }
  await writeSql`INSERT INTO meta (key, value) VALUES ('public_id_key', ${randomBytes(PUBLIC_ID_KEY_BYTES).toString("hex")}) ON CONFLICT (key) DO NOTHING`;
  const [keyRow] = await writeSql`SELECT value FROM meta WHERE key = 'public_id_key'`;
  const publicIdKey = Buffer.from(keyRow!.value as string, "hex");

  const partitions = new Set(await existingPartitions(writeSql));
  const ahead = () => [dayOf(nowMs()), dayOf(nowMs()) + DAY_MS];
  await ensurePartitions(writeSql, ahead(), partitions);
  const retention = startPostgresRetention(
    writeSql,
    retentionOf(opts),
    nowMs,
    partitions,
    await readPrunedBeforeMs(writeSql),
    (err) => log(scrub(`tailprobe: retention pass failed, retried at its next interval: ${String(err)}`)),
  );
  let prunedBeforeMs = retention.rawKeptFromMs();
  const codes = new PgCodes(writeSql);
  const writer = postgresWriter(writeSql, codes, partitions);
  const pool = postgresReadPool(readSql, wrap);

  let clientIds = (await readSql`SELECT DISTINCT client_id FROM sessions`).map((r) => r.client_id as string);
  let targets: string[] = [];
  let announced = new Set<string>();
  let toAnnounce: string[] = [];
  let refreshFailing = false;
  const refresh = async () => {
    try {
      const pending = [...toAnnounce];
      for (const target of pending)
        await writeSql`INSERT INTO deployment_targets (target, announced_ms) VALUES (${target}, ${nowMs()}) ON CONFLICT (target) DO UPDATE SET announced_ms = excluded.announced_ms`;
      toAnnounce = toAnnounce.slice(pending.length);
      targets = (await readSql`SELECT target FROM deployment_targets`).map((r) => r.target as string);
      clientIds = (await readSql`SELECT DISTINCT client_id FROM sessions`).map((r) => r.client_id as string);
      prunedBeforeMs = await readPrunedBeforeMs(readSql);
      await ensurePartitions(writeSql, ahead(), partitions);
      if (refreshFailing) log("tailprobe: PostgreSQL answers again");
      refreshFailing = false;
    } catch (err) {
      if (!refreshFailing)
        log(scrub(`tailprobe: PostgreSQL unavailable (${String((wrap(err) as Error).message)}); retrying`));
      refreshFailing = true;
    }
  };
  let refreshing: Promise<void> | null = null;
  const timer = setInterval(
    () => void (refreshing ??= refresh().finally(() => (refreshing = null))),
    DEPLOYMENT_REFRESH_MS,
  );
  timer.unref();

  return {
    kind: "postgres",
    location: redactUrl(url),
    publicIdKey,
    storedClientIds: () => clientIds,
    deploymentTargets: () => targets,
    announceTargets: (mine) => {
      // Announced at the next refresh (within DEPLOYMENT_REFRESH_MS); a target is announced once per process.
      const fresh = mine.filter((t) => !announced.has(t));
      if (fresh.length === 0) return;
      announced = new Set([...announced, ...fresh]);
      toAnnounce.push(...fresh);
    },
    readPool: pool,
    incidents: postgresIncidents(pool, writeSql, guarded),
    stressRuns: postgresStressRuns(writeSql, pool, guarded),
    alertState: postgresAlertState(writeSql, guarded),
    openPageReader: () => postgresPageReader(readSql, guarded),
    insertBatch: (batch, meta) => guarded(() => writer.insertBatch(batch, meta)),
    // Read on the event loop: PostgreSQL writes leave it anyway, and every server of the deployment reads its own.
    ingestBody: (body, rules, meta) =>
      ingestHere(body, rules, meta, (batch, m) => guarded(() => writer.insertBatch(batch, m))),
    deleteClient: (clientId) =>
      guarded(async () => {
        const deleted = await deleteClientPostgres(writeSql, clientId);
        codes.forgetClients();
        clientIds = clientIds.filter((c) => c !== clientId);
        return deleted;
      }),
    rawKeptFromMs: () => Math.max(prunedBeforeMs, retention.rawKeptFromMs()),
    pruneNow: () => guarded(() => retention.pruneNow()),
    close: async () => {
      clearInterval(timer);
      retention.stop();
      pool.close();
      await refreshing;
      await Promise.all([writeSql.end({ timeout: CLOSE_TIMEOUT_S }), readSql.end({ timeout: CLOSE_TIMEOUT_S })]);
    },
  };
}
