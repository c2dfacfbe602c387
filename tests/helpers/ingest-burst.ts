// A load script for the crash test: bursts POST /api/samples at a server with
// a few requests always in flight, and prints one line per acknowledged batch
// ("ACK sessionId firstSeq lastSeq") the moment the 200 arrives. It stops
// after the server has been unreachable a few times in a row, or after a
// bounded number of batches.
//   node --import tsx tests/helpers/ingest-burst.ts URL [batches] [concurrency] [batches-per-second]
// Without a rate it sends as fast as the server answers.
import { randomBytes } from "node:crypto";

const [url, batchesArg, concurrencyArg, rateArg] = process.argv.slice(2);
if (url === undefined) {
  process.stderr.write("usage: ingest-burst.ts URL [batches] [concurrency]\n");
  process.exit(2);
}
const BATCHES_MAX = Number(batchesArg ?? 5000);
const CONCURRENCY = Number(concurrencyArg ?? 4);
const SAMPLES_PER_BATCH = 200;
const FAILURES_TO_STOP = 3;
/** Minimum spacing of batch starts across all workers (ms); 0 = unpaced. */
const SPACING_MS = rateArg === undefined ? 0 : 1000 / Number(rateArg);
let nextStartMs = performance.now();

const clientId = randomBytes(8).toString("hex");
let next = 0;
let failuresInARow = 0;

function batch(n: number): { sessionId: string; body: string; first: number; last: number } {
  // Each worker writes its own session so batches commit independently.
  const sessionId = `burst${n % CONCURRENCY}-${clientId}`;
  const first = Math.floor(n / CONCURRENCY) * SAMPLES_PER_BATCH;
  const now = Date.now();
  const samples = Array.from({ length: SAMPLES_PER_BATCH }, (_, i) => ({
    seq: first + i,
    t: now,
    scheduledT: now - 1,
    method: "xhr",
    target: "A",
    ms: 1 + ((first + i) % 97) / 10,
    outcome: "ok",
    lateMs: 1,
    visibleAtSend: true,
    visibleAtReply: true,
    hiddenMs: 0,
    froze: false,
    fresh: false,
  }));
  return { sessionId, body: JSON.stringify({ clientId, sessionId, samples }), first, last: first + SAMPLES_PER_BATCH - 1 };
}

async function worker(): Promise<void> {
  while (next < BATCHES_MAX && failuresInARow < FAILURES_TO_STOP) {
    if (SPACING_MS > 0) {
      const at = nextStartMs;
      nextStartMs += SPACING_MS;
      await new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));
    }
    const b = batch(next++);
    try {
      const res = await fetch(`${url}/api/samples`, { method: "POST", headers: { "Content-Type": "application/json" }, body: b.body });
      if (res.status !== 200) throw new Error(`http-${res.status}: ${await res.text()}`);
      await res.json();
      failuresInARow = 0;
      process.stdout.write(`ACK ${b.sessionId} ${b.first} ${b.last}\n`);
    } catch (err) {
      failuresInARow++;
      process.stdout.write(`FAIL ${b.sessionId} ${b.first} ${(err as Error).message}\n`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
