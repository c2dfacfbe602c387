// A store full of synthetic samples for the query benchmarks: a day of
// probes from one page against servers A and B, with a planted evening spike
// and a bimodal WebSocket series, written straight through the Store.
import { openStore } from "../server/store/store.js";
import type { Sample } from "../shared/protocol.js";

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

/** Deterministic PRNG (mulberry32) so every run stores the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes n samples evenly over [endMs - spanMs, endMs] into the database at dbPath. */
export function fillStore(dbPath: string, n: number, spanMs: number, endMs: number): void {
  const store = openStore(dbPath);
  const rand = prng(42);
  const startMs = endMs - spanMs;
  const step = spanMs / n;
  try {
    for (let seq0 = 0; seq0 < n; seq0 += 1000) {
      const samples: Sample[] = [];
      for (let seq = seq0; seq < Math.min(n, seq0 + 1000); seq++) {
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
      store.insertBatch({ clientId: "bench_client", sessionId: "bench_session", samples }, { userAgent: null, receivedAtMs: endMs });
    }
  } finally {
    store.close();
  }
}
