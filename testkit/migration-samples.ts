// The samples the migration fixtures hold (server/store/*/migrations/fixtures/): what
// scripts/dev/migration-fixtures.mts posted to an older tailprobe to write
// each fixture, and what the migration tests expect to read back after the
// upgrade. Deterministic from the fixture's t0, so a fixture needs only its
// manifest entry (t0, the fields its version refused) beside its dump.
import type { Sample } from "../shared/contract/index.js";
import { mulberry32 } from "../shared/prng.js";

/** One POST /api/samples of a fixture, as posted (before the fields a version refused are taken out). */
export interface FixtureBatch {
  clientId: string;
  sessionId: string;
  label?: string;
  timerResolutionMs?: number;
  /** Sent as the request's User-Agent. */
  userAgent: string;
  samples: Sample[];
}

/** Sample fields added after version 1 of the contract, newest first: a fixture's server refused those it did not know. */
export const LATER_SAMPLE_FIELDS = ["reportInFlight", "serverMs"] as const;
/** Batch fields added after version 1 of the contract. */
export const LATER_BATCH_FIELDS = ["timerResolutionMs"] as const;

const TICKS = 12;
const TICK_MS = 1000;
const PROBES = [
  ["xhr", "A"],
  ["jsonp", "A"],
  ["ws", "A"],
  ["xhr", "B"],
  ["ws", "B"],
  ["best2", "A+B"],
] as const;
const SESSIONS = [
  { clientId: "client_fixture_a", sessionId: "session_fixture_a1", label: "laptop", timerResolutionMs: 0.005 },
  { clientId: "client_fixture_a", sessionId: "session_fixture_a2", label: "laptop", timerResolutionMs: 0.1 },
  { clientId: "client_fixture_b", sessionId: "session_fixture_b1" },
] as const;
const USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
/** Samples per POST: each session's ticks go in two batches, in seq order as a page's outbox sends them. */
const BATCH_SAMPLES = 50;

/** ms to the wire's 3 decimals. */
const ms3 = (x: number) => Math.round(x * 1000) / 1000;

/** One session's samples: six probes a tick, ping and tcprtt baselines every third tick, every outcome and flag. */
function sessionSamples(t0: number, k: number): Sample[] {
  const rand = mulberry32(1000 + k);
  const out: Sample[] = [];
  let seq = 0;
  for (let tick = 0; tick < TICKS; tick++) {
    const due = t0 + k * 97 + tick * TICK_MS;
    PROBES.forEach(([method, target], slot) => {
      const scheduledT = due + slot * 100;
      const lateMs = ms3(rand() * 4);
      const t = scheduledT + Math.floor(lateMs);
      const r = rand();
      const hidden = tick >= 10;
      const s: Sample = {
        seq: seq++,
        t,
        method,
        target,
        ms: ms3(0.4 + rand() * 30),
        outcome: "ok",
        scheduledT,
        lateMs,
        visibleAtSend: !hidden,
        visibleAtReply: !(hidden || (tick === 9 && slot === 2)),
        hiddenMs: hidden ? (tick - 9) * TICK_MS : 0,
        fresh: tick === 0,
        serverLagMs: ms3(rand() * 0.5),
        serverMs: ms3(0.05 + rand() * 0.2),
        reportInFlight: slot === 0 && tick % 5 === 0,
      };
      if (tick === 7 && slot === 1) s.froze = true;
      if (r < 0.06) {
        s.outcome = "timeout";
        s.ms = 5000;
      } else if (r < 0.12) {
        s.outcome = "error";
        s.ms = null;
        // Reasons every version knew, each only where the contract pairs it (shared/contract/sample-pairs.ts).
        const coin = rand() < 0.5;
        s.reason =
          method === "ws"
            ? "ws-closed"
            : method === "best2"
              ? coin
                ? "ws-closed"
                : "network"
              : method === "xhr" && coin
                ? "http-5xx"
                : "network";
      } else if (r < 0.15) {
        s.outcome = "skipped";
        s.ms = null;
        s.reason = "frozen";
      }
      if (method === "best2" && s.outcome === "ok") {
        s.winner = rand() < 0.6 ? "ws" : "jsonp";
        const loserOk = rand() < 0.8;
        s.otherOutcome = loserOk ? "ok" : "timeout";
        // A leg that timed out has no latency of its own.
        if (loserOk) s.otherMs = ms3((s.ms ?? 0) + rand() * 8);
      }
      out.push(s);
    });
    if (tick % 3 === 0)
      for (const target of ["A", "B"]) {
        const t = due + 650;
        out.push({ seq: seq++, t, method: "ping", target, ms: ms3(0.05 + rand() * 0.3), outcome: "ok" });
        out.push({
          seq: seq++,
          t,
          method: "tcprtt",
          target,
          ms: ms3(0.1 + rand() * 0.4),
          outcome: "ok",
          minrtt: ms3(0.03 + rand() * 0.02),
        });
      }
  }
  return out;
}

/** Every batch of a fixture in the order posted. */
export function fixtureBatches(t0: number): FixtureBatch[] {
  const batches: FixtureBatch[] = [];
  SESSIONS.forEach((session, k) => {
    const samples = sessionSamples(t0, k);
    for (let i = 0; i < samples.length; i += BATCH_SAMPLES)
      batches.push({ ...session, userAgent: USER_AGENT, samples: samples.slice(i, i + BATCH_SAMPLES) });
  });
  return batches;
}

/**
 * After the batches: the first batch again, whole (every sample a duplicate),
 * then its session's seq 3 again at a t 900 ms later with another latency:
 * what a reloaded page or a restored outbox may send. Versions that keyed raw
 * samples by (t, session, seq) stored that copy too.
 */
export function fixtureRedeliveries(t0: number): FixtureBatch[] {
  const first = fixtureBatches(t0)[0]!;
  const again = first.samples.find((s) => s.seq === 3)!;
  // The copy's tick was due 900 ms later too: its lateness stays what the contract pairs with t.
  const later = { ...again, t: again.t + 900, ms: 77.7 };
  if (again.scheduledT !== undefined) later.scheduledT = again.scheduledT + 900;
  return [first, { ...first, samples: [later] }];
}

/** A batch as a fixture's server accepted it: without the fields its version refused. */
export function asAccepted(batch: FixtureBatch, refused: readonly string[]): FixtureBatch {
  const drop = new Set(refused);
  const samples = batch.samples.map(
    (s) => Object.fromEntries(Object.entries(s).filter(([key]) => !drop.has(key))) as Sample,
  );
  const out: FixtureBatch = { ...batch, samples };
  if (drop.has("timerResolutionMs")) delete out.timerResolutionMs;
  return out;
}
