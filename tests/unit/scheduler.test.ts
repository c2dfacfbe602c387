// The scheduler's promise: the page's own work (reports, IndexedDB, live view,
// channels, Resource Timing) never runs in a probe's task, sits in the middle
// of the largest gap between probe slots, and a report waits for a probe to
// its server to settle, within bounds.
import { describe, expect, it } from "vitest";
import type { Clock } from "../../client/src/common/clock.js";
import type { ClockTick } from "../../client/src/probe/clock-protocol.js";
import { ClockSchedule } from "../../client/src/probe/clock-schedule.js";
import { clockSlots, HOUSEKEEPING_DEFER_MAX, REPORT_LEAD_MS, Scheduler } from "../../client/src/probe/scheduler.js";

const PROBES = 7;
const INTERVAL_MS = 1000;
const T_START = 1_763_000_000_123;

type Event = { kind: "probe" | "local" | "report"; task: number; atMs: number; deadlineMs?: number };

function harness(inFlight: () => number = () => 0) {
  let nowMs = T_START;
  let task = 0;
  const events: Event[] = [];
  const clock: Clock = { nowMs: () => nowMs, monoMs: () => nowMs - T_START, random: () => 0.5 };
  const scheduler = new Scheduler({
    probeSlots: PROBES,
    clock,
    probe: () => events.push({ kind: "probe", task, atMs: nowMs }),
    reportServerProbesInFlight: inFlight,
    local: () => events.push({ kind: "local", task, atMs: nowMs }),
    report: (deadlineMs) => events.push({ kind: "report", task, atMs: nowMs, deadlineMs }),
  });
  const schedule = new ClockSchedule(INTERVAL_MS, clockSlots(PROBES), nowMs, 0);
  /** Runs the clock to wallMs; each tick is its own task, as each worker message is. */
  const runTo = (wallMs: number, between?: (t: ClockTick) => void) => {
    for (let w = nowMs; w <= wallMs; w++) {
      nowMs = w;
      for (const t of schedule.wake(w, w - T_START)) {
        task++;
        scheduler.onTick(t);
        between?.(t);
      }
    }
  };
  return {
    scheduler,
    events,
    runTo,
    now: () => nowMs,
    setNow: (t: number) => (nowMs = t),
    nextTask: () => task++,
    t0: schedule.t0,
  };
}

describe("scheduler", () => {
  it("never runs housekeeping in a probe's task, and puts it in the middle of the largest gap", () => {
    const h = harness();
    h.runTo(h.t0 + 10 * INTERVAL_MS - 1);
    const probes = h.events.filter((e) => e.kind === "probe");
    const house = h.events.filter((e) => e.kind !== "probe");
    expect(probes).toHaveLength(10 * PROBES);
    expect(house.filter((e) => e.kind === "local")).toHaveLength(10);
    expect(house.filter((e) => e.kind === "report")).toHaveLength(10);
    // No task that sent a probe did any housekeeping.
    const probeTasks = new Set(probes.map((e) => e.task));
    for (const e of house) expect(probeTasks.has(e.task)).toBe(false);
    // Probe send times, sorted; the largest gap between two consecutive ones holds each housekeeping moment, at its middle.
    const sends = probes.map((e) => e.atMs);
    for (const e of house) {
      const before = Math.max(...sends.filter((t) => t <= e.atMs));
      const after = Math.min(...sends.filter((t) => t > e.atMs), Number.POSITIVE_INFINITY);
      if (after === Number.POSITIVE_INFINITY) continue; // the run's last gap has no end
      const gaps = sends.slice(1).map((t, i) => t - sends[i]!);
      expect(after - before).toBe(Math.max(...gaps));
      expect(Math.abs(e.atMs - (before + after) / 2)).toBeLessThanOrEqual(1);
      expect(e.atMs - before).toBeGreaterThanOrEqual(INTERVAL_MS / clockSlots(PROBES) - 1);
    }
    // A report's request must start REPORT_LEAD_MS before the next probe.
    for (const r of house.filter((e) => e.kind === "report")) {
      const next = Math.min(...sends.filter((t) => t > r.atMs), Number.POSITIVE_INFINITY);
      if (next !== Number.POSITIVE_INFINITY) expect(r.deadlineMs).toBe(next - REPORT_LEAD_MS);
    }
  });

  it("holds the report while a probe to its server is in flight, and sends it when that probe settles in time", () => {
    let inFlight = 1;
    const h = harness(() => inFlight);
    h.runTo(h.t0 + INTERVAL_MS - 1);
    expect(h.events.filter((e) => e.kind === "local")).toHaveLength(1);
    expect(h.events.filter((e) => e.kind === "report")).toHaveLength(0);
    // Settling with the next probe too close: still held.
    inFlight = 0;
    h.setNow(h.t0 + INTERVAL_MS - REPORT_LEAD_MS + 1);
    h.scheduler.onProbeSettled();
    expect(h.events.filter((e) => e.kind === "report")).toHaveLength(0);
    // In the next gap, settling early enough lets it go at once, in the settling task.
    inFlight = 1;
    h.runTo(h.t0 + 2 * INTERVAL_MS - 1);
    expect(h.events.filter((e) => e.kind === "report")).toHaveLength(0);
    inFlight = 0;
    const lastHouse = h.events.filter((e) => e.kind === "local").at(-1)!;
    h.setNow(lastHouse.atMs + 5);
    h.nextTask();
    h.scheduler.onProbeSettled();
    const reports = h.events.filter((e) => e.kind === "report");
    expect(reports).toHaveLength(1);
    expect(reports[0]!.atMs).toBe(lastHouse.atMs + 5);
  });

  it("starts the report as soon as the tick's last probe to its server settles, well before the next probe", () => {
    let inFlight = 0;
    const h = harness(() => inFlight);
    let settledAt: number | undefined;
    // Each probe to the home server is in flight until the test settles it, 3 ms after the tick's last probe.
    h.runTo(h.t0 + INTERVAL_MS - 1, (t) => {
      if (t.slot !== PROBES - 1) return;
      inFlight = 1;
      expect(h.events.filter((e) => e.kind === "report")).toHaveLength(0);
      h.setNow(t.dueMs + 3);
      inFlight = 0;
      h.nextTask();
      settledAt = h.now();
      h.scheduler.onProbeSettled();
      h.setNow(t.dueMs);
    });
    const reports = h.events.filter((e) => e.kind === "report");
    expect(reports).toHaveLength(1);
    expect(reports[0]!.atMs).toBe(settledAt);
    const probeTasks = new Set(h.events.filter((e) => e.kind === "probe").map((e) => e.task));
    expect(probeTasks.has(reports[0]!.task)).toBe(false);
    // The housekeeping slot that follows does its local work and no second report.
    expect(h.events.filter((e) => e.kind === "local")).toHaveLength(1);
    expect(reports[0]!.deadlineMs).toBe(h.t0 + INTERVAL_MS - REPORT_LEAD_MS);
  });

  it(`sends the report anyway after ${HOUSEKEEPING_DEFER_MAX} housekeeping slots of probes in flight`, () => {
    const h = harness(() => 1);
    h.runTo(h.t0 + (HOUSEKEEPING_DEFER_MAX + 1) * INTERVAL_MS - 1);
    const locals = h.events.filter((e) => e.kind === "local");
    const reports = h.events.filter((e) => e.kind === "report");
    expect(locals).toHaveLength(HOUSEKEEPING_DEFER_MAX + 1);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.task).toBe(locals[HOUSEKEEPING_DEFER_MAX]!.task);
  });
});
