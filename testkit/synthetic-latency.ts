// Made-up but plausible probe data with known features, so a test, a
// benchmark or a screenshot can check what tailprobe finds:
//   syntheticSamples  a few minutes: a latency spike on one series in a known
//                     window, a bimodal series and some failures;
//   monthOfLatencies  weeks at 1 Hz with planted level shifts (synthetic-month.ts).
import type { Sample, SampleBatch } from "../shared/contract/index.js";
import { mulberry32 } from "../shared/prng.js";

export interface SyntheticPlan {
  /** First sample (epoch ms). */
  startMs: number;
  /** How many seconds of one-per-second samples per series. */
  seconds: number;
  /** The spike: every xhr→A sample in [fromMs, toMs) takes 400–900 ms. */
  spike: { fromMs: number; toMs: number };
  seed?: number;
}

/** Series and their typical latency (ms); ping is fastest, HTTP slowest, as in the seed. */
const SERIES: { method: Sample["method"]; target: string; baseMs: number }[] = [
  { method: "xhr", target: "A", baseMs: 24 },
  { method: "jsonp", target: "A", baseMs: 22 },
  { method: "ws", target: "A", baseMs: 12 },
  { method: "ping", target: "A", baseMs: 9 },
  { method: "xhr", target: "B", baseMs: 30 },
  { method: "jsonp", target: "B", baseMs: 5 }, // bimodal, see below
  { method: "ws", target: "B", baseMs: 14 },
  { method: "ping", target: "B", baseMs: 10 },
  { method: "best2", target: "A+B", baseMs: 11 },
];

/** ws→B skips one tick in this many seconds. */
export const SKIP_EVERY_S = 100;

export const BIMODAL = { method: "jsonp", target: "B", lowMs: 5, highMs: 60, highShare: 0.3 } as const;

export function syntheticSamples(plan: SyntheticPlan): Sample[] {
  const rnd = mulberry32(plan.seed ?? 42);
  const out: Sample[] = [];
  let seq = 0;
  for (let s = 0; s < plan.seconds; s++) {
    const t = plan.startMs + s * 1000;
    for (const [k, series] of SERIES.entries()) {
      const sent = t + k * 37;
      // Log-normal body with a mild tail: exp(N(0, 0.25)) times the base.
      const gauss = Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
      let ms = series.baseMs * Math.exp(0.25 * gauss);
      if (rnd() < 0.01) ms *= 3 + 4 * rnd();
      if (series.method === BIMODAL.method && series.target === BIMODAL.target) {
        ms = (rnd() < BIMODAL.highShare ? BIMODAL.highMs : BIMODAL.lowMs) * Math.exp(0.12 * gauss);
      }
      const inSpike = sent >= plan.spike.fromMs && sent < plan.spike.toMs;
      if (inSpike && series.method === "xhr" && series.target === "A") ms = 400 + 500 * rnd();
      const failed = series.method === "xhr" && series.target === "B" && rnd() < 0.01;
      // Every 100th tick of ws→B could not be sent (a frozen page): an honest gap.
      if (series.method === "ws" && series.target === "B" && s % SKIP_EVERY_S === 0) {
        out.push({
          seq: seq++,
          t: sent,
          scheduledT: sent,
          method: "ws",
          target: "B",
          ms: null,
          outcome: "skipped",
          reason: "frozen",
        });
        continue;
      }
      out.push({
        seq: seq++,
        t: sent,
        scheduledT: sent - 1,
        lateMs: 1,
        visibleAtSend: true,
        visibleAtReply: true,
        method: series.method,
        target: series.target,
        ms: failed ? 5000 : Math.round(ms * 1000) / 1000,
        outcome: failed ? "timeout" : "ok",
        // Races as the page records them: 70 % won by the WebSocket leg, the loser half as slow again.
        // Derived from the tick, not drawn, so the other series keep their random draws.
        ...(series.method === "best2"
          ? {
              winner: s % 10 < 7 ? ("ws" as const) : ("jsonp" as const),
              otherMs: Math.round(ms * 1500) / 1000,
              otherOutcome: "ok" as const,
            }
          : {}),
      });
    }
  }
  return out;
}

/** Posts samples in protocol-sized batches; returns how many were accepted. */
export async function ingest(baseUrl: string, samples: Sample[], label = "synthetic-laptop"): Promise<number> {
  let accepted = 0;
  for (let i = 0; i < samples.length; i += 1000) {
    const batch: SampleBatch = {
      clientId: "synthetic-client-01",
      sessionId: "synthetic-session-01",
      label,
      samples: samples.slice(i, i + 1000),
    };
    const res = await fetch(`${baseUrl}/api/samples`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent":
          "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
      },
      body: JSON.stringify(batch),
    });
    if (!res.ok) throw new Error(`POST /api/samples answered ${res.status}: ${await res.text()}`);
    accepted += ((await res.json()) as { accepted: number }).accepted;
  }
  return accepted;
}

export { monthOfLatencies, type MonthPlan, type MonthVisit, type PlantedShift } from "./synthetic-month.js";
