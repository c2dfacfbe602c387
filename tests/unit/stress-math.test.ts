// The stress test's rules: the bufferbloat grade's bands, RPM's trimmed mean
// checked against brute force, and the verdict on where added latency sits.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gradeOf, GRADE_BANDS, runGrade } from "../../shared/stress/grade.js";
import { LOAD_VALUES, loadCode, phaseCode, phaseOfCode, STRESS_PHASES } from "../../shared/stress/phases.js";
import { responsiveness, trimmedMean } from "../../shared/stress/rpm.js";
import { phaseVerdict, runVerdict } from "../../shared/stress/verdict.js";

describe("bufferbloat grade (DSLReports' bands)", () => {
  it("puts each band's edges where the FAQ does", () => {
    const cases: [number, string][] = [
      [-3, "A+"],
      [0, "A+"],
      [4.99, "A+"],
      [5, "A"],
      [29.9, "A"],
      [30, "B"],
      [59.9, "B"],
      [60, "C"],
      [199, "C"],
      [200, "D"],
      [399.9, "D"],
      [400, "F"],
      [5000, "F"],
    ];
    for (const [ms, grade] of cases) expect(gradeOf(ms), `${ms} ms`).toBe(grade);
    expect(GRADE_BANDS.map((b) => b.belowMs)).toEqual([5, 30, 60, 200, 400]);
  });

  it("grades a run by the mean of download's and upload's added latency", () => {
    // (2 + 10) / 2 = 6 ms: A, though download alone would be A+.
    expect(runGrade(2, 10)).toBe("A");
    expect(runGrade(180, null)).toBe("C");
    expect(runGrade(null, null)).toBeNull();
  });
});

describe("phase codes", () => {
  it("round-trips every phase and keeps 0 for outside a test", () => {
    for (const p of STRESS_PHASES) expect(phaseOfCode(phaseCode(p))).toBe(p);
    expect(phaseOfCode(0)).toBeNull();
    expect(phaseOfCode(6)).toBeNull();
    expect(LOAD_VALUES.map(loadCode)).toEqual([0, 1, 2, 3, 4, 5]);
    // Three bits hold them all.
    expect(Math.max(...STRESS_PHASES.map(phaseCode))).toBeLessThan(8);
  });
});

describe("RPM (draft-ietf-ippm-responsiveness)", () => {
  it("trimmed mean keeps the fastest 95 %, checked against brute force", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.01, max: 5000, noNaN: true }), { minLength: 1, maxLength: 400 }),
        (xs) => {
          const sorted = [...xs].sort((a, b) => a - b);
          // Brute force: drop values one at a time from the top while more than 95 % would remain.
          const kept = [...sorted];
          while (kept.length - 1 >= 0.95 * sorted.length && kept.length > 1) kept.pop();
          const expected = kept.reduce((a, b) => a + b, 0) / kept.length;
          expect(trimmedMean(xs)).toBeCloseTo(expected, 6);
        },
      ),
      { numRuns: 500 },
    );
    expect(trimmedMean([])).toBeNull();
    // 20 values: the slowest one is dropped.
    expect(trimmedMean([...Array(19).fill(10), 1000])).toBe(10);
  });

  it("averages the foreign and self probes' RPM", () => {
    // Foreign 30 ms → 2000 RPM, self 120 ms → 500 RPM: 1250.
    expect(responsiveness([30, 30, 30], [120, 120])).toBeCloseTo(1250, 9);
    expect(responsiveness([30], [])).toBeNull();
    expect(responsiveness([], [30])).toBeNull();
  });
});

describe("verdict", () => {
  const rise = (wsAddedMs: number | null, pingAddedMs: number | null, tcprttAddedMs: number | null = null) => ({
    phase: "download" as const,
    wsAddedMs,
    pingAddedMs,
    tcprttAddedMs,
  });

  it("network when ping rose with the WebSocket", () => {
    const v = phaseVerdict(rise(185, 180));
    expect(v.verdict).toBe("network");
    expect(v.summary).toContain("ping rose by 180 ms");
    expect(v.summary).toContain("the queue is in the network path (bufferbloat)");
  });

  it("browser when ping stayed flat while the WebSocket rose", () => {
    const v = phaseVerdict(rise(40, 1));
    expect(v.verdict).toBe("browser");
    expect(v.summary).toContain("ping stayed flat");
    expect(v.summary).toContain("the browser or TCP on the loaded connection");
  });

  it("the kernel RTT stands in for ping, and without either it cannot tell", () => {
    expect(phaseVerdict(rise(100, null, 90)).verdict).toBe("network");
    expect(phaseVerdict(rise(100, null, 90)).summary).toContain("kernel TCP RTT");
    expect(phaseVerdict(rise(100, null, null)).verdict).toBe("unknown");
    expect(phaseVerdict(rise(null, 100)).verdict).toBe("unknown");
  });

  it("none below the A+ band, and the one-third-share boundary", () => {
    expect(phaseVerdict(rise(4.9, 0)).verdict).toBe("none");
    expect(phaseVerdict(rise(300, 100)).verdict).toBe("network");
    // The bottleneck test's worst run: ping +120.9 ms against WebSocket +248.5 ms.
    expect(phaseVerdict(rise(248.5, 120.9)).verdict).toBe("network");
    expect(phaseVerdict(rise(300, 99.9)).verdict).toBe("browser");
  });

  it("a run takes the verdict of the phase whose WebSocket rose most", () => {
    const v = runVerdict([
      { ...rise(20, 0), phase: "download" },
      { ...rise(300, 290), phase: "upload" },
      { ...rise(500, null), phase: "bidirectional" },
    ]);
    expect(v.verdict).toBe("network");
    expect(v.summary.startsWith("upload:")).toBe(true);
    expect(runVerdict([]).verdict).toBe("unknown");
  });
});
