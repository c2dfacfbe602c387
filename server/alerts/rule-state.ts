// One rule on one series from one evaluation to the next: the minimum sample
// count, the hysteresis between threshold and clear, the pending time (`for`)
// and the flapping hold. Pure: the evaluator passes the time in.
import { isFlapping } from "./flapping.js";
import type { AlertRule } from "./rule.js";

export type Phase = "inactive" | "pending" | "firing";

export interface InstanceState {
  phase: Phase;
  /** The hysteresis' output at the last judged evaluation: over the threshold and not yet back past clear. */
  bad: boolean;
  pendingSinceMs: number | null;
  firingSinceMs: number | null;
  /** `bad` at each judged evaluation, oldest first, at most the flap window long. */
  history: boolean[];
  flapping: boolean;
}

export const initialState = (): InstanceState => ({
  phase: "inactive",
  bad: false,
  pendingSinceMs: null,
  firingSinceMs: null,
  history: [],
  flapping: false,
});

/** What one evaluation found for one series. */
export interface Judgement {
  /** The statistic; null when fewer than the rule's minimum samples (or its baseline's) back it. */
  value: number | null;
  /** Samples in the window (the population the statistic is taken over). */
  samples: number;
  /** This evaluation's threshold and clear in the value's unit (a relative rule's factors times its baseline). */
  threshold: number;
  clear: number;
}

export interface Step {
  state: InstanceState;
  transition: "firing" | "resolved" | null;
}

/** Over the threshold (bad), back past clear (good), or in between (as it was). */
function hysteresis(rule: AlertRule, j: Judgement & { value: number }, wasBad: boolean): boolean {
  if (rule.threshold.op === "above") return j.value > j.threshold ? true : j.value <= j.clear ? false : wasBad;
  return j.value < j.threshold ? true : j.value >= j.clear ? false : wasBad;
}

export function step(rule: AlertRule, s: InstanceState, j: Judgement, nowMs: number): Step {
  if (j.value === null) {
    // Not judged. With no sample at all the series is gone (a tab closed, a
    // target removed): nothing is known to be wrong any more. With a few, a
    // firing alert is held (nothing says it is fine) and a pending one
    // starts over: no alert ever rests on fewer than the minimum.
    if (j.samples === 0) {
      const transition = s.phase === "firing" ? "resolved" : null;
      return { state: { ...initialState(), history: s.history }, transition };
    }
    if (s.phase === "pending") return { state: { ...s, phase: "inactive", pendingSinceMs: null }, transition: null };
    return { state: s, transition: null };
  }
  const bad = hysteresis(rule, j as Judgement & { value: number }, s.bad);
  const history = rule.flapping === null ? [] : [...s.history, bad].slice(-rule.flapping.window);
  const flapping = rule.flapping === null ? false : isFlapping(history, s.flapping, rule.flapping);
  const next: InstanceState = { ...s, bad, history, flapping };

  if (flapping || (bad && s.phase === "firing")) {
    // Held firing while flapping: one firing and one resolved message, not one per swing.
    if (s.phase === "firing") return { state: next, transition: null };
    return { state: { ...next, phase: "firing", pendingSinceMs: null, firingSinceMs: nowMs }, transition: "firing" };
  }
  if (!bad) {
    const transition = s.phase === "firing" ? "resolved" : null;
    return { state: { ...next, phase: "inactive", pendingSinceMs: null, firingSinceMs: null }, transition };
  }
  const since = s.phase === "pending" ? s.pendingSinceMs! : nowMs;
  if (nowMs - since >= rule.forMs)
    return { state: { ...next, phase: "firing", pendingSinceMs: null, firingSinceMs: nowMs }, transition: "firing" };
  return { state: { ...next, phase: "pending", pendingSinceMs: since }, transition: null };
}
