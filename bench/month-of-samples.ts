// A month of samples for the query benchmarks: four clients (one tab each),
// two servers, every method and baseline (13 samples a tick, as a real tab
// reports), spread over 30 days, written straight through the store's writer
// in large batches (no HTTP). The file is cached in the temp dir by size, so
// a second run starts at once.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type RunningServer, startServer } from "../server/app.js";
import { parseServeArgs } from "../server/cli/options.js";
import { openStore } from "../server/store/sqlite/store.js";
import { bulkLoader } from "../server/store/sqlite/bulk-loader.js";
import { Codes } from "../server/store/sqlite/codes.js";
import { SCHEMA_VERSION } from "../server/store/sqlite/schema.js";
import type { Sample, SampleBatch } from "../shared/contract/index.js";
import { mulberry32 } from "../shared/prng.js";

export const DAY_MS = 86_400_000;
const CLIENTS = ["laptop", "phone", "office", "home"] as const;
/** Typical latency per (method, target), ms. */
const SERIES: [Sample["method"], string, number][] = [
  ["xhr", "A", 1.2],
  ["jsonp", "A", 1.5],
  ["ws", "A", 0.6],
  ["xhr", "B", 21],
  ["jsonp", "B", 22],
  ["ws", "B", 19],
  ["best2", "A+B", 0.55],
  ["ping", "A", 0.1],
  ["ping", "B", 18],
  ["wsping", "A", 0.3],
  ["wsping", "B", 18.5],
  ["tcprtt", "A", 0.2],
  ["tcprtt", "B", 18.4],
];
const BATCH = 6500;
/** Tabs (one per client) and samples a tick each sends: what per-client densities are computed from. */
export const TABS = CLIENTS.length;
export const SAMPLES_PER_TICK = SERIES.length;
/** Bump when the generated data or the schema changes, so a cached file of the old shape is not reused. */
const DATA_VERSION = 12;

export interface Month {
  dbPath: string;
  n: number;
  startMs: number;
  endMs: number;
  /** Seconds it took to write (0 when the cached file was reused). */
  writeSeconds: number;
}

function sampleAt(
  rand: () => number,
  seq: number,
  due: number,
  k: number,
  method: Sample["method"],
  target: string,
  base: number,
  hidden: boolean,
  evening: boolean,
): Sample {
  const probe = method === "xhr" || method === "jsonp" || method === "ws" || method === "best2";
  // Each probe has its own slot in the tick (client/src/probe/clock-schedule.ts) and is sent
  // late by a few ms now and then, as on a busy page; t is whole ms as on the wire.
  const slotDue = due + k * 7;
  const t = slotDue + (probe ? Math.floor(rand() * rand() * 40) : 0);
  const r = rand();
  let s: Sample;
  if (r < 0.002) s = { seq, t, method, target, ms: null, outcome: "error", reason: "http-5xx" };
  else if (r < 0.003) s = { seq, t, method, target, ms: 5000, outcome: "timeout" };
  else if (r < 0.004 && probe) s = { seq, t, method, target, ms: null, outcome: "skipped", reason: "frozen" };
  else {
    let ms = base * Math.exp(0.3 * (rand() * 2 - 1)) + (r > 0.99 ? 20 + rand() * 200 : 0);
    if (method === "ws" && rand() < 0.3) ms *= 3; // a second mode
    if (evening && probe) ms *= 1.5;
    s = { seq, t, method, target, ms: Math.round(ms * 1000) / 1000, outcome: "ok" };
    if (method === "best2") {
      s.winner = rand() < 0.6 ? "ws" : "jsonp";
      s.otherMs = Math.round((ms + rand() * 2) * 1000) / 1000;
      s.otherOutcome = "ok";
    }
  }
  if (method === "tcprtt" && s.outcome === "ok") s.minrtt = Math.round(base * 800) / 1000;
  if (probe && s.outcome === "skipped")
    s.scheduledT = slotDue; // prober.skip(): the tick, nothing measured
  else if (probe) {
    s.scheduledT = slotDue;
    s.lateMs = t - slotDue;
    // Every boolean the page reports (client/src/probe/prober.ts), as it reports them.
    s.visibleAtSend = !hidden;
    s.visibleAtReply = !hidden;
    s.froze = false;
    s.fresh = false;
    s.reportInFlight = false;
    s.hiddenMs = hidden ? 60_000 : 0;
    // Resource Timing's facts (XHR and JSONP), the WebSocket's served note (serverMs only).
    if (method === "xhr" || method === "jsonp") s.serverLagMs = Math.round(rand() * 300) / 1000;
    if (method !== "best2") s.serverMs = Math.round(rand() * 200) / 1000;
  }
  return s;
}

/**
 * n samples over `days` ending at `endMs`, as each client's batches of
 * `ticksPerBatch` ticks, a batch per client per round, rounds in time order
 * (bulkLoader needs it; tabs reporting their last few seconds send the same).
 */
export function* sampleBatches(n: number, days: number, endMs: number, ticksPerBatch: number): Generator<SampleBatch> {
  const startMs = endMs - days * DAY_MS;
  const rand = mulberry32(1311);
  const ticksPerClient = Math.ceil(n / CLIENTS.length / SERIES.length);
  const stepMs = (days * DAY_MS) / ticksPerClient;
  const seqs = CLIENTS.map(() => 0);
  let written = 0;
  for (let round = 0; round * ticksPerBatch < ticksPerClient && written < n; round++) {
    for (const [c, label] of CLIENTS.entries()) {
      const batch: Sample[] = [];
      for (let tick = round * ticksPerBatch; tick < Math.min(ticksPerClient, (round + 1) * ticksPerBatch); tick++) {
        const due = Math.floor(startMs + tick * stepMs + c * 97);
        const hidden = rand() < 0.1;
        const evening = (due % DAY_MS) / DAY_MS > 0.8; // a daily busy hour
        for (const [k, [method, target, base]] of SERIES.entries()) {
          if (written + batch.length >= n) break;
          batch.push(sampleAt(rand, seqs[c]!++, due, k, method, target, base, hidden, evening));
        }
      }
      if (batch.length === 0) continue;
      written += batch.length;
      yield { clientId: `bench_${label}`, sessionId: `bench_session_${label}`, label, samples: batch };
    }
  }
}

/** A database file's bytes on disk with its WAL: what the disk figures count. */
export function bytesWithWal(dbPath: string): number {
  const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
  return size(dbPath) + size(`${dbPath}-wal`);
}

/** n samples over `days` ending at a whole day, cached under the temp dir. */
export function monthOfSamples(n: number, days = 30): Month {
  const endMs = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const startMs = endMs - days * DAY_MS;
  const dir = path.join(os.tmpdir(), "tailprobe-bench-cache");
  fs.mkdirSync(dir, { recursive: true });
  // The store's schema version is in the name too: branches built at once share this directory, and a
  // file one of them upgraded (a version number the next may give another meaning) is never another's.
  const stem = `month-v${DATA_VERSION}-s${SCHEMA_VERSION}-${n}-`;
  const dbPath = path.join(dir, `${stem}${days}d-${endMs}.db`);
  const done = `${dbPath}.complete`;
  if (fs.existsSync(done)) return { dbPath, n, startMs, endMs, writeSeconds: 0 };
  for (const f of fs.readdirSync(dir)) if (f.startsWith(stem)) fs.rmSync(path.join(dir, f), { force: true });
  const t0 = performance.now();
  // Retention off for the generator: the data is in the past by design.
  const store = openStore(dbPath, { rawDays: 36_500, rollupDays: 36_500 });
  const loader = bulkLoader(store.db, new Codes(store.db));
  let written = 0;
  try {
    for (const batch of sampleBatches(n, days, endMs, Math.ceil(BATCH / SERIES.length))) {
      loader.add(batch);
      written += batch.samples.length;
    }
    loader.finish();
  } finally {
    store.db.pragma("wal_checkpoint(TRUNCATE)");
    void store.close();
  }
  fs.writeFileSync(done, String(written));
  const writeSeconds = (performance.now() - t0) / 1000;
  console.log(
    `wrote ${written} samples over ${days} days in ${writeSeconds.toFixed(1)} s (${(written / writeSeconds).toFixed(0)}/s) to ${dbPath}`,
  );
  return { dbPath, n: written, startMs, endMs, writeSeconds };
}

/** A server in this process over a month (or hour) of samples, retention off: the data is in the past by design. */
export async function serveMonth(month: Month): Promise<RunningServer> {
  const parsed = parseServeArgs([
    ...["--port", "0", "--db", month.dbPath, "--no-ping", "--no-rate-limit"],
    ...["--raw-days", "36500", "--rollup-days", "36500"],
  ]);
  if (!parsed.ok || parsed.value === "help") throw new Error("bad flags");
  return startServer(parsed.value, { log: () => {} });
}
