// A store full of synthetic samples for the query benchmarks: a day of
// probes from one page against servers A and B, with a planted evening spike
// and a bimodal WebSocket series, written straight through the Store.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openStore } from "../server/store/sqlite/store.js";
import type { Sample } from "../shared/contract/index.js";
import { mulberry32 } from "../shared/prng.js";
import { tempDir } from "../testkit/server-process.js";

const SERIES: [Sample["method"], string, number][] = [
  ["xhr", "A", 1.2],
  ["jsonp", "A", 1.5],
  ["ws", "A", 0.6],
  ["xhr", "B", 1.3],
  ["jsonp", "B", 1.6],
  ["ws", "B", 0.7],
  ["best2", "A+B", 0.5],
  ["ping", "A", 0.1],
];

/** n synthetic samples evenly over [endMs - spanMs, endMs], in batches of `batchSamples` (seq order, one session). */
export function* syntheticBatches(n: number, spanMs: number, endMs: number, batchSamples = 1000): Generator<Sample[]> {
  const rand = mulberry32(42);
  const startMs = endMs - spanMs;
  const step = spanMs / n;
  for (let seq0 = 0; seq0 < n; seq0 += batchSamples) {
    const samples: Sample[] = [];
    for (let seq = seq0; seq < Math.min(n, seq0 + batchSamples); seq++) {
      const [method, target, base] = SERIES[seq % SERIES.length]!;
      const t = Math.round(startMs + seq * step);
      const inSpike = (t - startMs) / spanMs > 0.87 && (t - startMs) / spanMs < 0.88;
      const r = rand();
      if (r < 0.002) {
        samples.push({ seq, t, method, target, ms: null, outcome: "error" });
        continue;
      }
      let ms = base * Math.exp(0.3 * (rand() * 2 - 1)) + (r > 0.99 ? 20 + rand() * 200 : 0);
      if (method === "ws" && rand() < 0.3) ms *= 10; // a second mode
      if (inSpike && method !== "ping") ms += 50 + rand() * 100;
      samples.push({ seq, t, method, target, ms: Math.round(ms * 1000) / 1000, outcome: "ok", lateMs: rand() * 5 });
    }
    yield samples;
  }
}

/** Writes n samples evenly over [endMs - spanMs, endMs] into the database at dbPath. */
export async function fillStore(dbPath: string, n: number, spanMs: number, endMs: number): Promise<void> {
  const store = openStore(dbPath);
  try {
    for (const samples of syntheticBatches(n, spanMs, endMs))
      await store.insertBatch(
        { clientId: "bench_client", sessionId: "bench_session", samples },
        { userAgent: null, receivedAtMs: endMs },
      );
  } finally {
    await store.close();
  }
}

export const DAY_MS = 86_400_000;

/** A new database in a temporary folder (`dir`, for the caller to remove) with n samples over the day before now. */
export async function dayOfSamples(n: number): Promise<{ dir: string; dbPath: string; endMs: number }> {
  const dir = tempDir("tailprobe-bench-");
  const dbPath = path.join(dir, "bench.db");
  const endMs = Date.now();
  const t = performance.now();
  await fillStore(dbPath, n, DAY_MS, endMs);
  console.log(`stored ${n} samples over a day in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return { dir, dbPath, endMs };
}
