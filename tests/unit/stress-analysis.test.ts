// A run's answer from its report and samples: goodput without the ramp
// second, the article's per-phase table, added latency, grade, RPM and the
// verdict, checked against figures worked out by hand and by brute force.
import { describe, expect, it } from "vitest";
import type { PhaseReport } from "../../shared/contract/stress.js";
import { mulberry32 } from "../../shared/prng.js";
import { analyzeRun, goodputMbps, type RunInput } from "../../shared/stress/analysis.js";
import { gradeOf } from "../../shared/stress/grade.js";
import { STRESS_PHASES, type StressPhase } from "../../shared/stress/phases.js";

const T0 = 1_800_000_000_000;
const MB = 1e6 / 8; // bytes in a megabit

function report(name: StressPhase, i: number, o: Partial<PhaseReport> = {}): PhaseReport {
  return {
    name,
    start: T0 + i * 11_000,
    end: T0 + i * 11_000 + 10_000,
    streamsDown: 0,
    streamsUp: 0,
    downBytes: Array(11).fill(0),
    upBytes: Array(11).fill(0),
    selfMs: [],
    ...o,
  };
}

/** n values around `ms`, spread ±10 %, seeded. */
function around(ms: number, n: number, seed: number): number[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => ms * (0.9 + 0.2 * r()));
}

const brute = (xs: readonly number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length - 1e-9) - 1)]!;
};

describe("goodputMbps", () => {
  it("leaves out the first second and divides by the time after it", () => {
    // 10 s phase: second 0 moved 1 Mbit (ramp), then 9 × 8 Mbit, the last entry a partial second of 0.
    const r = report("download", 1, { downBytes: [MB, ...Array(9).fill(8 * MB), 0] });
    expect(goodputMbps(r, "down")).toBeCloseTo(8, 9);
    // A direction the phase does not load has no goodput.
    expect(goodputMbps(r, "up")).toBeNull();
    expect(goodputMbps(report("idle", 0), "down")).toBeNull();
  });
});

describe("analyzeRun", () => {
  // Idle: ws 20 ms, ping 18 ms. Download: both rise by ~200 ms (a queue in the path).
  // Upload: ws rises by 40 ms, ping stays (the browser or TCP). Bidirectional: like download.
  const ws = { idle: 20, download: 220, upload: 60, bidirectional: 230, cooldown: 21 };
  const ping = { idle: 18, download: 215, upload: 18, bidirectional: 225, cooldown: 18 };
  const latencies: RunInput["latencies"] = {};
  STRESS_PHASES.forEach((p, i) => {
    latencies[p] = {
      ws: around(ws[p], 15, i + 1),
      ping: around(ping[p], 15, i + 11),
      xhr: around(ws[p] + 3, 15, i + 21),
    };
  });
  const selfMs = around(400, 40, 99);
  const input: RunInput = {
    id: "run_0001",
    client: "pub123",
    target: "A",
    outcome: "complete",
    reason: null,
    phases: [
      report("idle", 0),
      report("download", 1, { streamsDown: 6, downBytes: [MB, ...Array(9).fill(7.6 * MB), 0], selfMs }),
      report("upload", 2, { streamsUp: 5, upBytes: [0, ...Array(9).fill(3.5 * MB), 0], selfMs }),
      report("bidirectional", 3, {
        streamsDown: 6,
        streamsUp: 5,
        downBytes: [0, ...Array(9).fill(6 * MB), 0],
        upBytes: [0, ...Array(9).fill(3 * MB), 0],
        selfMs,
      }),
      report("cooldown", 4),
    ],
    latencies,
  };
  const run = analyzeRun(input);

  it("has every phase, in order, with the page's times and goodput", () => {
    expect(run.phases.map((p) => p.name)).toEqual([...STRESS_PHASES]);
    const down = run.phases[1]!;
    expect(down.downMbps).toBeCloseTo(7.6, 9);
    expect(down.upMbps).toBeNull();
    expect(down.streamsDown).toBe(6);
    expect(run.phases[3]!.downMbps).toBeCloseTo(6, 9);
    expect(run.phases[3]!.upMbps).toBeCloseTo(3, 9);
    expect(run.start).toBe(T0);
    expect(run.end).toBe(T0 + 4 * 11_000 + 10_000);
  });

  it("summarises every series per phase by nearest rank (brute force)", () => {
    for (const [i, p] of STRESS_PHASES.entries())
      for (const series of ["ws", "ping", "xhr"]) {
        const values = latencies[p]![series]!;
        expect(run.phases[i]!.latency[series]).toEqual({
          count: 15,
          p50: brute(values, 50),
          p90: brute(values, 90),
          p99: brute(values, 99),
        });
      }
  });

  it("adds latency as the WebSocket's p50 minus idle's, grades download and upload, and tells where it sits", () => {
    const idleP50 = brute(latencies.idle!.ws!, 50);
    expect(run.addedMs.download).toBeCloseTo(brute(latencies.download!.ws!, 50) - idleP50, 9);
    expect(run.addedMs.upload).toBeCloseTo(brute(latencies.upload!.ws!, 50) - idleP50, 9);
    expect(run.phases[0]!.addedMs).toBeNull();
    // (~200 + ~40) / 2 ≈ 120 ms: C.
    expect(run.grade).toBe("C");
    expect(run.phases[1]!.verdict).toBe("network");
    expect(run.phases[2]!.verdict).toBe("browser");
    expect(run.phases[4]!.verdict).toBeNull();
    // The run's verdict is the phase whose WebSocket rose most: bidirectional.
    expect(run.verdict).toBe("network");
    expect(run.summary).toMatch(/^bidirectional: ping rose by .* the queue is in the network path/);
  });

  it("RPM: the bidirectional phase's, from the WebSocket and the self probes' trimmed means", () => {
    const tm = (xs: readonly number[]) => {
      const s = [...xs].sort((a, b) => a - b).slice(0, Math.ceil(xs.length * 0.95));
      return s.reduce((a, b) => a + b, 0) / s.length;
    };
    const expected = (60_000 / tm(latencies.bidirectional!.ws!) + 60_000 / tm(selfMs)) / 2;
    expect(run.rpm).toBeCloseTo(expected, 6);
    expect(run.phases[0]!.rpm).toBeNull();
    expect(run.phases[1]!.self).toMatchObject({ count: 40 });
  });

  it("a run interrupted after download has the phases it finished, graded from download alone", () => {
    const cut = analyzeRun({
      ...input,
      outcome: "running",
      phases: input.phases.slice(0, 2),
      latencies: { idle: latencies.idle!, download: latencies.download! },
    });
    expect(cut.phases.map((p) => p.name)).toEqual(["idle", "download"]);
    expect(cut.addedMs.upload).toBeNull();
    // From download's added latency alone (~200 ms, at the C/D edge).
    expect(cut.grade).toBe(gradeOf(cut.addedMs.download!));
    expect(["C", "D"]).toContain(cut.grade);
    // No bidirectional phase: the worst loaded phase's RPM.
    expect(cut.rpm).toBe(cut.phases[1]!.rpm);
  });
});
