// GET /api/stress: the reported runs of a range, each with its samples read
// back by run (the page reader's stressRun filter over the run's span) and
// grouped by phase and series, then summarised by shared/stress/analysis.ts.
// Only the samples of the run's own session count (a run id in another
// page's samples is not that run's), and of its target (best-of-two's where
// one of its legs is the target).
import { TCP_MIN_RTT_SERIES, type StressResponse } from "../../shared/contract/index.js";
import { analyzeRun, type PhaseLatencies } from "../../shared/stress/analysis.js";
import type { StressPhase } from "../../shared/stress/phases.js";
import type { Pace } from "../store/pace.js";
import type { PageReader } from "../store/page-reader.js";
import type { StoredStressRun, StressRunStore } from "../store/stress-runs.js";

/** Runs answered at most, the newest: each reads its minutes of samples. */
export const STRESS_RUNS_ANSWERED_MAX = 50;
/**
 * Samples of a run are looked for this far beyond its reported span (ms): a
 * baseline is stamped with its server's clock and tagged on arrival, and a
 * probe sent in the last phase settles after the run ended.
 */
export const RUN_SLACK_MS = 120_000;

export interface StressQuerySource {
  stressRuns: StressRunStore;
  openPageReader(): PageReader;
}

/** A sample's series and target belong to the run's target. */
const aboutTarget = (method: string, target: string, runTarget: string) =>
  target === runTarget || (method === "best2" && target.split("+").includes(runTarget));

async function latenciesOf(
  src: StressQuerySource,
  run: StoredStressRun,
  pace: Pace,
): Promise<Partial<Record<StressPhase, Record<string, number[]>>>> {
  const out: Partial<Record<StressPhase, Record<string, number[]>>> = {};
  const add = (phase: StressPhase, series: string, ms: number) => {
    const p = (out[phase] ??= {});
    (p[series] ??= []).push(ms);
  };
  const reader = src.openPageReader();
  try {
    for await (const page of reader.pages({
      fromMs: run.startMs - RUN_SLACK_MS,
      toMs: run.endMs + RUN_SLACK_MS,
      stressRun: run.key,
    })) {
      for (const r of page) {
        const [, , , , method, target, ms, outcome, , , , , , , , , minrtt, , , session, , , load] = r;
        if (session !== run.session || load === null || !aboutTarget(method, target, run.target)) continue;
        const phase = load as StressPhase;
        if (outcome === "ok" && ms !== null) add(phase, method, ms);
        if (method === "tcprtt" && outcome === "ok" && minrtt !== null) add(phase, TCP_MIN_RTT_SERIES, minrtt);
      }
      // The page reader yields between pages; this notices an asker who hung up.
      pace.checkAborted();
    }
  } finally {
    reader.close();
  }
  return out;
}

/** The answer of GET /api/stress for [fromMs, toMs] (and one client, by its clientId). */
export async function stressAnswer(
  src: StressQuerySource,
  fromMs: number,
  toMs: number,
  clientId: string | undefined,
  publicId: (clientId: string) => string,
  pace: Pace,
): Promise<StressResponse> {
  const all = await src.stressRuns.runs(fromMs, toMs, clientId);
  const runs = all.slice(-STRESS_RUNS_ANSWERED_MAX);
  const answered = [];
  for (const run of runs) {
    const latencies: Partial<Record<StressPhase, PhaseLatencies>> = await latenciesOf(src, run, pace);
    answered.push(
      analyzeRun({
        id: run.key,
        client: publicId(run.clientId),
        target: run.target,
        outcome: run.outcome,
        reason: run.reason,
        phases: run.phases,
        latencies,
      }),
    );
  }
  return { runs: answered, omitted: all.length - runs.length };
}
