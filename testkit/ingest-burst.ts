// A load script for the crash test: bursts POST /api/samples at a server with
// a few requests always in flight, and prints one line per acknowledged batch
// ("ACK sessionId firstSeq lastSeq") the moment the 200 arrives. It stops
// after the server has been unreachable a few times in a row, or after a
// bounded number of batches.
//   node --import tsx testkit/ingest-burst.ts URL [batches] [concurrency] [batches-per-second]
// Without a rate it sends as fast as the server answers.
// It is also the load of bench/ingest-stall.ts, which measures the echo beside
// it on the same two cores, so it costs as little CPU as it can: node:http on
// keep-alive sockets (post-json.ts), and each body written from a template
// rather than 200 objects serialised.
import { randomBytes } from "node:crypto";
import { keepAliveAgent, postJson } from "./post-json.js";

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
  const rest = `,"t":${now},"scheduledT":${now - 1},"method":"xhr","target":"A","outcome":"ok","lateMs":1,"visibleAtSend":true,"visibleAtReply":true,"hiddenMs":0,"froze":false,"fresh":false}`;
  const samples: string[] = [];
  for (let i = 0; i < SAMPLES_PER_BATCH; i++)
    samples.push(`{"seq":${first + i},"ms":${1 + ((first + i) % 97) / 10}${rest}`);
  return {
    sessionId,
    body: `{"clientId":"${clientId}","sessionId":"${sessionId}","samples":[${samples.join(",")}]}`,
    first,
    last: first + SAMPLES_PER_BATCH - 1,
  };
}

const agent = keepAliveAgent(CONCURRENCY);
const post = (body: string) => postJson(`${url}/api/samples`, body, agent);

async function worker(): Promise<void> {
  while (next < BATCHES_MAX && failuresInARow < FAILURES_TO_STOP) {
    if (SPACING_MS > 0) {
      const at = nextStartMs;
      nextStartMs += SPACING_MS;
      await new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));
    }
    const b = batch(next++);
    try {
      const res = await post(b.body);
      if (res.status !== 200) throw new Error(`http-${res.status}: ${res.text}`);
      JSON.parse(res.text);
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
agent.destroy();
