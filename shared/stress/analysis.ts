// One stress-test run, from what the page reported (phase times, bytes per
// second, round trips on the load connections) and the run's samples (ok
// latencies per phase and series), to GET /api/stress's answer: per phase the
// article's table (every method and baseline, idle beside loaded), goodput,
// RPM and added latency; per run the grade, RPM and the verdict.
import type { LatencySummary, PhaseReport, StressPhaseResult, StressRun } from "../contract/stress.js";
import { summarize } from "../stats.js";
import { runGrade } from "./grade.js";
import { LOADED_PHASES, PHASE_LOAD, STRESS_PHASES, type LoadedPhase, type StressPhase } from "./phases.js";
import { responsiveness } from "./rpm.js";
import { phaseVerdict, runVerdict, type PhaseRise } from "./verdict.js";

/** The first second of a loaded phase is the streams' ramp (connections, slow start): left out of goodput. */
export const GOODPUT_SKIP_MS = 1000;
/** The foreign probe of RPM and the series added latency is measured on. */
export const FOREIGN_SERIES = "ws";

/** ok latencies (ms) per series, for one phase. */
export type PhaseLatencies = Readonly<Record<string, readonly number[]>>;

export interface RunInput {
  id: string;
  /** The client's public id. */
  client: string;
  target: string;
  outcome: StressRun["outcome"];
  reason: string | null;
  /** The page's report of each phase it finished. */
  phases: readonly PhaseReport[];
  /** The run's samples to its target, per phase. */
  latencies: Partial<Record<StressPhase, PhaseLatencies>>;
}

/** Goodput (Mbit/s) of one direction of a phase: the bytes after its first second over the time after it. */
export function goodputMbps(report: PhaseReport, dir: "down" | "up"): number | null {
  if (!PHASE_LOAD[report.name][dir]) return null;
  const seconds = dir === "down" ? report.downBytes : report.upBytes;
  const spanMs = report.end - report.start - GOODPUT_SKIP_MS;
  if (spanMs <= 0 || seconds.length < 2) return null;
  const bytes = seconds.slice(1).reduce((a, b) => a + b, 0);
  return (bytes * 8) / (spanMs / 1000) / 1e6;
}

function brief(values: readonly number[]): LatencySummary {
  const s = summarize(values);
  return { count: s.count, p50: s.p50, p90: s.p90, p99: s.p99 };
}

const p50Of = (l: PhaseLatencies | undefined, series: string): number | null => {
  const v = l?.[series];
  return v === undefined || v.length === 0 ? null : summarize(v).p50;
};

const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

export function analyzeRun(r: RunInput): StressRun {
  const idle = r.latencies.idle;
  const reports = new Map(r.phases.map((p) => [p.name, p]));
  const phases: StressPhaseResult[] = [];
  const rises: PhaseRise[] = [];
  for (const name of STRESS_PHASES) {
    const report = reports.get(name);
    if (report === undefined) continue;
    const lat = r.latencies[name] ?? {};
    const latency: Record<string, LatencySummary> = {};
    for (const [series, values] of Object.entries(lat)) if (values.length > 0) latency[series] = brief(values);
    const loaded = (LOADED_PHASES as readonly string[]).includes(name);
    const selfMs = report.selfMs;
    const addedMs = name === "idle" ? null : minus(p50Of(lat, FOREIGN_SERIES), p50Of(idle, FOREIGN_SERIES));
    let verdict: StressPhaseResult["verdict"] = null;
    let summary: string | null = null;
    if (loaded) {
      const rise: PhaseRise = {
        phase: name as LoadedPhase,
        wsAddedMs: addedMs,
        pingAddedMs: minus(p50Of(lat, "ping"), p50Of(idle, "ping")),
        tcprttAddedMs: minus(p50Of(lat, "tcprtt"), p50Of(idle, "tcprtt")),
      };
      rises.push(rise);
      ({ verdict, summary } = phaseVerdict(rise));
    }
    phases.push({
      name,
      start: report.start,
      end: report.end,
      downMbps: goodputMbps(report, "down"),
      upMbps: goodputMbps(report, "up"),
      streamsDown: report.streamsDown,
      streamsUp: report.streamsUp,
      latency,
      self: selfMs.length === 0 ? null : brief(selfMs),
      rpm: selfMs.length === 0 ? null : responsiveness(lat[FOREIGN_SERIES] ?? [], selfMs),
      addedMs,
      verdict,
      summary,
    });
  }
  const added = (p: LoadedPhase) => phases.find((x) => x.name === p)?.addedMs ?? null;
  const loadedRpm = phases.filter((p) => p.verdict !== null && p.rpm !== null).map((p) => p.rpm!);
  const bidirectional = phases.find((p) => p.name === "bidirectional")?.rpm ?? null;
  const v = runVerdict(rises);
  return {
    id: r.id,
    client: r.client,
    target: r.target,
    start: phases[0]?.start ?? 0,
    end: phases.at(-1)?.end ?? 0,
    outcome: r.outcome,
    reason: r.reason,
    phases,
    addedMs: { download: added("download"), upload: added("upload"), bidirectional: added("bidirectional") },
    grade: runGrade(added("download"), added("upload")),
    rpm: bidirectional ?? (loadedRpm.length === 0 ? null : Math.min(...loadedRpm)),
    verdict: v.verdict,
    summary: v.summary,
  };
}
