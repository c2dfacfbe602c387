// Flap detection as Nagios does it: the percent state change over the last
// `window` judged evaluations, each change weighted by how recent it is
// (0.8 for the oldest transition to 1.2 for the newest), so a rule that has
// just calmed down sheds its flapping sooner than an old burst would suggest.
import type { FlapOptions } from "./rule.js";

const WEIGHT_OLDEST = 0.8;
const WEIGHT_NEWEST = 1.2;

/**
 * Percent state change (0-100) of a history of states, oldest first. Fewer
 * than `window` states count as if the oldest had held before them (no
 * changes), as Nagios starts a history filled with the current state.
 */
export function percentStateChange(history: readonly boolean[], window: number): number {
  const transitions = window - 1;
  if (transitions <= 0) return 0;
  const states = history.slice(-window);
  const pad = window - states.length;
  let weighted = 0;
  for (let i = 1; i < states.length; i++) {
    if (states[i] === states[i - 1]) continue;
    // Transition k (0 = oldest) of the full window.
    const k = pad + i - 1;
    weighted += WEIGHT_OLDEST + ((WEIGHT_NEWEST - WEIGHT_OLDEST) * k) / Math.max(1, transitions - 1);
  }
  return (100 * weighted) / transitions;
}

/** Whether a rule is flapping after this history, given whether it was before (the thresholds' hysteresis). */
export function isFlapping(history: readonly boolean[], wasFlapping: boolean, o: FlapOptions): boolean {
  const pct = percentStateChange(history, o.window);
  return wasFlapping ? pct >= o.stopPct : pct > o.startPct;
}
