// The clock's promises: fixed due times that never drift, every slot emitted
// exactly once, and missed slots told apart as a frozen page or a sleeping
// machine (the one case no browser test can stage).
import { describe, expect, it } from "vitest";
import { ClockSchedule } from "../../client/src/probe/clock-schedule.js";

const START = 1_700_000_000_300;

describe("clock schedule", () => {
  it("emits every slot once on fixed due times, however late the wake-ups", () => {
    const s = new ClockSchedule(1000, 4, START, 0);
    expect(s.t0).toBe(1_700_000_001_000);
    const ticks = [];
    // Wake-ups jitter by up to 300 ms; due times must not.
    for (let i = 0; i < 50; i++) {
      const wall = s.t0 + i * 250 + ((i * 37) % 300);
      ticks.push(...s.wake(wall, wall - START));
    }
    // The last wake-up is at t0 + 12,263 ms: slots 0 … 49 are due, each once.
    expect(ticks).toHaveLength(50);
    expect(ticks.every((t) => t.missed === null)).toBe(true);
    for (const [i, t] of ticks.entries()) {
      expect(t.k * 4 + t.slot).toBe(i);
      expect(t.dueMs).toBe(s.t0 + t.k * 1000 + t.slot * 250);
    }
  });

  it("marks the slots of a gap in which both clocks ran as frozen", () => {
    const s = new ClockSchedule(1000, 2, START, 0);
    s.wake(s.t0 + 10, s.t0 + 10 - START);
    // 20 s with nothing running: a frozen page (or a stopped process).
    const wall = s.t0 + 20_010;
    const ticks = s.wake(wall, wall - START);
    const missed = ticks.filter((t) => t.missed !== null);
    expect(missed.every((t) => t.missed === "frozen")).toBe(true);
    // Slot 0 of ticks 1..19 and slot 1 of ticks 0..18 are missed; the newest of each is sent.
    expect(missed.filter((t) => t.slot === 0)).toHaveLength(19);
    expect(missed.filter((t) => t.slot === 1)).toHaveLength(19);
    expect(ticks.filter((t) => t.missed === null).map((t) => [t.k, t.slot])).toEqual([
      [19, 1],
      [20, 0],
    ]);
  });

  it("marks them asleep when the monotonic clock stood still", () => {
    const s = new ClockSchedule(1000, 1, START, 0);
    const mono = s.t0 + 10 - START;
    s.wake(s.t0 + 10, mono);
    // An hour on the wall clock, 2 ms on the monotonic one: the machine slept.
    const ticks = s.wake(s.t0 + 3_600_010, mono + 2);
    expect(ticks).toHaveLength(3600);
    expect(ticks.slice(0, -1).every((t) => t.missed === "asleep")).toBe(true);
    expect(ticks[ticks.length - 1]!.missed).toBeNull();
  });
});
