// What alert rules are judged on: the stored 5-minute rollups of a few recent
// buckets, per series and client, folded into the three sample populations a
// rule may ask for. Never the raw samples: the ingest keeps the current
// bucket's rollup row up to date in the same transaction as its samples, so
// the rows already hold everything reported, and a cycle reads a few hundred
// small rows (one index range per client and flag class) whatever the
// traffic. server/alerts/bucket-cache.ts keeps settled buckets between cycles.
import { MAX_LATE_MS_CHOICES } from "../../shared/contract/index.js";
import { emptyRollup, mergeInto, type Rollup } from "../../shared/rollup.js";
import { mergeEncoded } from "../../shared/rollup-codec.js";
import type { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { bucketStartMs, CLASS_COUNT, classesFor } from "../store/rollup-class.js";
import { notPeerProber } from "./page-sessions.js";

/**
 * Which samples a rule judges. A skipped tick (frozen tab, sleeping machine)
 * is never a failure in any of them.
 * - "all": every sample.
 * - "on-time": samples whose tick fired at most ON_TIME_LATE_MS late, and the
 *   server-measured baselines (no tick). A background tab's worker clock keeps
 *   its ticks on time, so it is judged; a throttled or blocked tab's late ticks
 *   measure the tab, not the network, and are left out.
 * - "visible": on-time samples sent and answered while the tab was visible.
 */
export const SAMPLE_MODES = ["all", "on-time", "visible"] as const;
export type SampleMode = (typeof SAMPLE_MODES)[number];

/** A tick later than this (ms; a rollup lateness class bound) was throttled or blocked. */
export const ON_TIME_LATE_MS = 500;
if (!(MAX_LATE_MS_CHOICES as readonly number[]).includes(ON_TIME_LATE_MS))
  throw new Error("ON_TIME_LATE_MS must be a rollup lateness class bound");

export interface WindowCell {
  /** Timeouts and errors. */
  failures: number;
  skipped: number;
  /** ok latencies (µs). */
  lat: Rollup;
}

export const emptyWindowCell = (): WindowCell => ({ failures: 0, skipped: 0, lat: emptyRollup() });

/** One series and client in one bucket: its cells per sample mode, in SAMPLE_MODES order. */
export interface BucketRow {
  method: string;
  target: string;
  /** The client's stored clientId (its secret: callers turn it into a public id). */
  clientKey: string;
  cells: [WindowCell, WindowCell, WindowCell];
}

/** Rows by bucket start (epoch ms). */
export type BucketRows = Map<number, BucketRow[]>;

const ALL_CLASSES = Array.from({ length: CLASS_COUNT }, (_, c) => c);
/** Per flag class, the indexes (SAMPLE_MODES) of the populations it belongs to. */
const MODES_OF_CLASS: number[][] = (() => {
  const onTime = new Set(classesFor({ maxLateMs: ON_TIME_LATE_MS }));
  const visible = new Set(classesFor({ maxLateMs: ON_TIME_LATE_MS, visibleOnly: true }));
  return ALL_CLASSES.map((c) => [0, ...(onTime.has(c) ? [1] : []), ...(visible.has(c) ? [2] : [])]);
})();

/**
 * The rollups of every 5-minute bucket starting in [bucketStart(fromMs), toMs),
 * for the clients heard from since fromMs (a client silent since before the
 * range has no row in it). Series as stored: a derived series (tcpminrtt) is
 * its own row.
 */
export async function readAlertBuckets(pool: ReadPool, fromMs: number, toMs: number, pace: Pace): Promise<BucketRows> {
  const out: BucketRows = new Map();
  const from = bucketStartMs(0, fromMs);
  if (from >= toMs) return out;
  const clients = await pool.all<{ id: number; client_key: string }>(
    `SELECT c.id, c.client_key FROM clients c WHERE c.id IN (SELECT s.client FROM sessions s WHERE s.last_t >= ?)`,
    [from],
  );
  if (clients.length === 0) return out;
  const series = await pool.all<{ id: number; method: string; target: string }>(
    "SELECT id, method, target FROM series",
    [],
  );
  const seriesById = new Map(series.map((s) => [s.id, s]));
  const clientKey = new Map(clients.map((c) => [c.id, c.client_key]));
  // One row per (bucket, series, client): a bucket holds a few dozen.
  const rows = new Map<string, BucketRow>();
  // Equalities on the key's leading columns (level, client, class), then the
  // start_ms range: one short index range per (client, class).
  await pool.scan(
    `SELECT series, client, class, start_ms, failures, skipped, lat FROM rollups
     WHERE level = 0 AND client IN (${clients.map((c) => c.id).join(", ")}) AND class IN (${ALL_CLASSES.join(", ")})
       AND start_ms >= ? AND start_ms < ?`,
    [from, toMs],
    (row) => {
      const [seriesId, client, cls, startMs, failures, skipped, lat] = row as [
        number,
        number,
        number,
        number,
        number,
        number,
        Uint8Array | null,
      ];
      const s = seriesById.get(Number(seriesId));
      const key = clientKey.get(Number(client));
      if (s === undefined || key === undefined) return;
      const start = Number(startMs);
      const id = `${start} ${s.id} ${client}`;
      let r = rows.get(id);
      if (r === undefined) {
        r = {
          method: s.method,
          target: s.target,
          clientKey: key,
          cells: [emptyWindowCell(), emptyWindowCell(), emptyWindowCell()],
        };
        rows.set(id, r);
        let bucket = out.get(start);
        if (bucket === undefined) out.set(start, (bucket = []));
        bucket.push(r);
      }
      const modes = MODES_OF_CLASS[Number(cls)] ?? [0];
      // Decoded once, merged into each population the class belongs to.
      let decoded: Rollup | null = null;
      if (lat !== null) mergeEncoded((decoded = emptyRollup()), lat);
      for (const m of modes) {
        const c = r.cells[m]!;
        c.failures += Number(failures);
        c.skipped += Number(skipped);
        if (decoded !== null) mergeInto(c.lat, decoded);
      }
    },
    pace,
  );
  return out;
}

/**
 * The send time (epoch ms) of the newest sample any page stored, or null if
 * none ever did: the dead-man's clock. Sessions of clients whose id starts
 * with `excludePrefix` (the servers' own probes of their peers) are not pages.
 */
export async function newestSampleMs(pool: ReadPool, excludePrefix = ""): Promise<number | null> {
  const pages = notPeerProber("client_id", excludePrefix);
  const rows =
    excludePrefix === ""
      ? await pool.all<{ t: number | null }>("SELECT max(last_t) AS t FROM sessions", [])
      : await pool.all<{ t: number | null }>(`SELECT max(last_t) AS t FROM sessions WHERE ${pages.sql}`, pages.params);
  const t = rows[0]?.t;
  return t === null || t === undefined ? null : Number(t);
}
