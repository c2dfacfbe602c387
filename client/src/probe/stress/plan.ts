// A stress test's schedule: the phases in order and how long each lasts,
// from the defaults or the probe page's URL (docs/stress.md):
//   ?stress=1                      start one test right after the page loads
//   &stressPhaseMs=15000           each loaded phase (download, upload, bidirectional)
//   &stressIdleMs=10000            the idle phase before the load
//   &stressCooldownMs=5000         the cooldown after it
//   &stressTarget=B                load a peer instead of the home server
import { STRESS_PHASES, type StressPhase } from "../../../../shared/stress/phases.js";

/** A loaded phase (ms): long enough for the ramp to settle and for ~15 probes per method at 1 Hz. */
export const PHASE_MS_DEFAULT = 15_000;
/** The idle phase before the load (ms): the baseline every loaded phase is compared with. */
export const IDLE_MS_DEFAULT = 10_000;
/** The cooldown after it (ms): how fast the queue drains. */
export const COOLDOWN_MS_DEFAULT = 5000;
export const PHASE_MS_MIN = 2000;
export const PHASE_MS_MAX = 120_000;

export interface PlannedPhase {
  name: StressPhase;
  durationMs: number;
}

export interface StressRequest {
  /** Start a test as soon as the page is probing. */
  startNow: boolean;
  /** The server to load, by name; null: the home server. */
  target: string | null;
  plan: PlannedPhase[];
}

function durationParam(q: URLSearchParams, key: string, dflt: number): number {
  const raw = q.get(key);
  if (raw === null || !/^\d{1,7}$/.test(raw)) return dflt;
  return Math.min(PHASE_MS_MAX, Math.max(PHASE_MS_MIN, Number(raw)));
}

/** The phases and their lengths, from defaults overridden by the URL; never throws. */
export function readStressRequest(search: string): StressRequest {
  const q = new URLSearchParams(search);
  const loadMs = durationParam(q, "stressPhaseMs", PHASE_MS_DEFAULT);
  const lengths: Record<StressPhase, number> = {
    idle: durationParam(q, "stressIdleMs", IDLE_MS_DEFAULT),
    download: loadMs,
    upload: loadMs,
    bidirectional: loadMs,
    cooldown: durationParam(q, "stressCooldownMs", COOLDOWN_MS_DEFAULT),
  };
  const target = q.get("stressTarget");
  return {
    startNow: q.get("stress") === "1",
    target: target !== null && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/.test(target) ? target : null,
    plan: STRESS_PHASES.map((name) => ({ name, durationMs: lengths[name] })),
  };
}

/** Which run and phase a time (epoch ms, the page's clock) falls in, from the phases' start times. */
export interface PhaseMark {
  name: StressPhase;
  startMs: number;
}

/** The phase containing t: the last one started at or before t, if t is before the run's end. */
export function phaseAt(marks: readonly PhaseMark[], endMs: number | null, t: number): StressPhase | null {
  if (marks.length === 0 || t < marks[0]!.startMs || (endMs !== null && t >= endMs)) return null;
  let found: StressPhase | null = null;
  for (const m of marks) {
    if (m.startMs > t) break;
    found = m.name;
  }
  return found;
}
