// Synthetic series for the alert tests: samples folded into the 5-minute
// bucket rows the evaluator reads (server/query/alert-window.ts), the way
// the store's rollups would hold them, plus a fake sink and clock.
import { emptyWindowCell, ON_TIME_LATE_MS, type BucketRow, type BucketRows } from "../../server/query/alert-window.js";
import { record } from "../../shared/rollup.js";
import type { Labels } from "../../server/alerts/alert.js";

export const BUCKET_MS = 300_000;

export interface SyntheticSample {
  t: number;
  method: string;
  target: string;
  client?: string;
  /** Latency (ms); null: a failure (timeout or error). */
  ms: number | null;
  skipped?: boolean;
  hidden?: boolean;
  /** How late the tick fired (ms); undefined: a baseline with no tick. */
  lateMs?: number;
}

/** The rows of every bucket the samples fall in. */
export function bucketRowsOf(samples: readonly SyntheticSample[]): BucketRows {
  const out: BucketRows = new Map();
  const rows = new Map<string, BucketRow>();
  for (const s of samples) {
    const start = s.t - (s.t % BUCKET_MS);
    const client = s.client ?? "client-secret-1";
    const key = `${start} ${s.method} ${s.target} ${client}`;
    let r = rows.get(key);
    if (r === undefined) {
      r = {
        method: s.method,
        target: s.target,
        clientKey: client,
        cells: [emptyWindowCell(), emptyWindowCell(), emptyWindowCell()],
      };
      rows.set(key, r);
      let b = out.get(start);
      if (b === undefined) out.set(start, (b = []));
      b.push(r);
    }
    const onTime = s.lateMs === undefined || s.lateMs <= ON_TIME_LATE_MS;
    const modes = [0, ...(onTime ? [1] : []), ...(onTime && s.hidden !== true ? [2] : [])];
    for (const m of modes) {
      const c = r.cells[m as 0 | 1 | 2];
      if (s.skipped === true) c.skipped++;
      else if (s.ms === null) c.failures++;
      else record(c.lat, Math.round(s.ms * 1000));
    }
  }
  return out;
}

/** A reader over a growing list of samples, as the store would answer at any moment. */
export function syntheticReader(samples: SyntheticSample[]) {
  return async (fromMs: number, toMs: number): Promise<BucketRows> => {
    const from = fromMs - (fromMs % BUCKET_MS);
    return bucketRowsOf(samples.filter((s) => s.t >= from && s.t <= toMs));
  };
}

export interface SinkCall {
  type: "fire" | "resolve";
  labels: Labels;
  annotations?: Labels;
  atMs?: number;
}

/** A sink that records what a source asked, and keeps what fires (level-triggered like the book). */
export function recordingSink() {
  const calls: SinkCall[] = [];
  const firing = new Map<string, Labels>();
  const key = (l: Labels) => JSON.stringify(Object.entries(l).sort());
  return {
    calls,
    firing,
    fire: async (req: { labels: Labels; annotations: Labels; startsAtMs?: number }) => {
      if (firing.has(key(req.labels))) return;
      firing.set(key(req.labels), req.labels);
      calls.push({ type: "fire", labels: req.labels, annotations: req.annotations, atMs: req.startsAtMs });
    },
    resolve: async (labels: Labels, endsAtMs?: number) => {
      if (!firing.delete(key(labels))) return;
      calls.push({ type: "resolve", labels, atMs: endsAtMs });
    },
    isFiring: (fp: string) => [...firing.values()].some((l) => fpOf(l) === fp),
  };
}

import { fingerprint as fpOf } from "../../server/alerts/alert.js";

/** A clock the test moves. */
export function manualClock(startMs: number) {
  let now = startMs;
  return { nowMs: () => now, advance: (ms: number) => void (now += ms), set: (ms: number) => void (now = ms) };
}
