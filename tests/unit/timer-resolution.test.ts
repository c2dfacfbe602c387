// The page's measurement of its own timer: the smallest step of a clock that
// is coarsened to a grid, as browsers coarsen performance.now().
import { describe, expect, it } from "vitest";
import { timerNote } from "../../client/src/histogram/stats-table.js";
import { measureTimerResolutionMs } from "../../client/src/probe/timer-resolution.js";

/** A clock advancing 1 µs per reading, seen through a grid of `stepMs`. */
function gridClock(stepMs: number, startMs = 1234.5678): () => number {
  let trueMs = startMs;
  return () => {
    trueMs += 0.001;
    return Math.floor(trueMs / stepMs) * stepMs;
  };
}

describe("timer resolution", () => {
  it.each([0.1, 0.005, 1, 0.02])("finds a %s ms grid", (stepMs) => {
    expect(measureTimerResolutionMs(gridClock(stepMs))).toBeCloseTo(stepMs, 9);
  });

  it("answers null for a clock that never moves, without hanging", () => {
    expect(measureTimerResolutionMs(() => 42)).toBeNull();
  });
});

describe("the histogram page's timer note", () => {
  it("says how finely figures were timed, or that they are quantised and to what", () => {
    expect(timerNote(null)).toBe("");
    expect(timerNote(0.005)).toBe("Browser latencies are timed to 5 µs.");
    expect(timerNote(0.1)).toMatch(/^Browser latencies are quantised to 0\.1 ms/);
    expect(timerNote(1)).toMatch(/quantised to 1 ms/);
  });
});
