// The probe page's stress-test logic that needs no browser: the schedule from
// the URL, which phase a time falls in, and the streams' ramp.
import { describe, expect, it } from "vitest";
import {
  COOLDOWN_MS_DEFAULT,
  IDLE_MS_DEFAULT,
  PHASE_MS_DEFAULT,
  PHASE_MS_MAX,
  PHASE_MS_MIN,
  phaseAt,
  readStressRequest,
} from "../../client/src/probe/stress/plan.js";
import { Ramp, STREAMS_MAX, STREAMS_START } from "../../client/src/probe/stress/ramp.js";

describe("readStressRequest", () => {
  it("has the documented defaults and phase order", () => {
    const r = readStressRequest("");
    expect(r.startNow).toBe(false);
    expect(r.target).toBeNull();
    expect(r.plan).toEqual([
      { name: "idle", durationMs: IDLE_MS_DEFAULT },
      { name: "download", durationMs: PHASE_MS_DEFAULT },
      { name: "upload", durationMs: PHASE_MS_DEFAULT },
      { name: "bidirectional", durationMs: PHASE_MS_DEFAULT },
      { name: "cooldown", durationMs: COOLDOWN_MS_DEFAULT },
    ]);
  });

  it("reads ?stress=1 and the lengths, clamped, and ignores what is malformed", () => {
    const r = readStressRequest("?stress=1&stressPhaseMs=4000&stressIdleMs=1&stressCooldownMs=9999999&stressTarget=B");
    expect(r.startNow).toBe(true);
    expect(r.target).toBe("B");
    expect(r.plan.map((p) => p.durationMs)).toEqual([PHASE_MS_MIN, 4000, 4000, 4000, PHASE_MS_MAX]);
    const odd = readStressRequest("?stress=yes&stressPhaseMs=-5&stressTarget=%3Cscript%3E&stressIdleMs=200000");
    expect(odd.startNow).toBe(false);
    expect(odd.target).toBeNull();
    expect(odd.plan[1]!.durationMs).toBe(PHASE_MS_DEFAULT);
    expect(odd.plan[0]!.durationMs).toBe(PHASE_MS_MAX);
  });
});

describe("phaseAt", () => {
  const marks = [
    { name: "idle" as const, startMs: 1000 },
    { name: "download" as const, startMs: 2000 },
    { name: "upload" as const, startMs: 3000 },
  ];
  it("is the last phase begun at or before t, and nothing outside the run", () => {
    expect(phaseAt(marks, null, 999)).toBeNull();
    expect(phaseAt(marks, null, 1000)).toBe("idle");
    expect(phaseAt(marks, null, 1999)).toBe("idle");
    expect(phaseAt(marks, null, 2000)).toBe("download");
    expect(phaseAt(marks, null, 9000)).toBe("upload");
    expect(phaseAt(marks, 4000, 3999)).toBe("upload");
    expect(phaseAt(marks, 4000, 4000)).toBeNull();
    expect(phaseAt([], null, 1500)).toBeNull();
  });
});

describe("Ramp", () => {
  it("adds a stream after each second that grew by more than 5 %, up to six", () => {
    const r = new Ramp();
    expect(r.streams).toBe(STREAMS_START);
    expect(r.observe(100)).toBe(false); // the first second says nothing
    expect(r.observe(200)).toBe(true);
    expect(r.observe(300)).toBe(true);
    expect(r.streams).toBe(STREAMS_MAX);
    expect(r.observe(400)).toBe(false); // at the cap
  });

  it("stops for good once a second did not grow", () => {
    const r = new Ramp();
    r.observe(100);
    expect(r.observe(104)).toBe(false); // +4 %: throughput stopped growing
    expect(r.observe(500)).toBe(false);
    expect(r.streams).toBe(STREAMS_START);
  });

  it("is saturated when the last four 4-second moving averages lie within 5 %", () => {
    const r = new Ramp();
    for (const b of [50, 100, 100, 100, 100, 100]) r.observe(b);
    // Averages so far: 87.5, 100, 100: fewer than four.
    expect(r.saturated).toBe(false);
    r.observe(100);
    // 87.5, 100, 100, 100: a 12.9 % spread.
    expect(r.saturated).toBe(false);
    r.observe(100);
    expect(r.saturated).toBe(true);
    // A second of 160 moves the newest average to 115: 15 % spread.
    r.observe(160);
    expect(r.saturated).toBe(false);
  });
});
