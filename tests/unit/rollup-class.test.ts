// Rollup classes (server/store/rollup-class.ts): every class a sample can
// have is one of ALL_CLASSES, below the aggregate rows' ANY_CLASS, and a
// filter's classes are exactly those of the samples it keeps, checked against
// brute force over every combination of flags, lateness and stress phase.
import { describe, expect, it } from "vitest";
import { FLAG, FLAG_KNOWN_SHIFT, packFlags } from "../../server/store/flags.js";
import { ANY_CLASS } from "../../server/store/rollup-batch.js";
import { ALL_CLASSES, CLASS_COUNT, type ClassFilter, classesFor, classOf } from "../../server/store/rollup-class.js";
import { MAX_LATE_MS_CHOICES } from "../../shared/contract/index.js";

const bool = [undefined, false, true] as const;
/** A sample's flags, lateness (µs or none) and phase code (null, 1..5), in every combination that matters. */
const samples = bool.flatMap((visibleAtSend) =>
  bool.flatMap((visibleAtReply) =>
    bool.flatMap((reportInFlight) =>
      [null, 0, 10_000, 50_001, 120_000, 9_000_000].flatMap((lateUs) =>
        [null, 1, 2, 3, 4, 5].map((load) => ({
          flags: packFlags({ visibleAtSend, visibleAtReply, reportInFlight }),
          lateUs,
          load,
        })),
      ),
    ),
  ),
);

/** What sampleWhere keeps, for the filters classes answer. */
function keeps(f: ClassFilter, s: (typeof samples)[number]): boolean {
  const visible = FLAG.visibleAtSend | FLAG.visibleAtReply;
  if (f.visibleOnly === true && ((s.flags >> FLAG_KNOWN_SHIFT) & visible & ~s.flags) !== 0) return false;
  if (f.maxLateMs !== undefined && s.lateUs !== null && s.lateUs / 1000 > f.maxLateMs) return false;
  if (f.loads !== undefined && f.loads.length > 0 && !f.loads.includes(s.load ?? 0)) return false;
  return true;
}

describe("rollup classes", () => {
  it("are distinct, below ANY_CLASS, and cover every sample", () => {
    expect(new Set(ALL_CLASSES).size).toBe(CLASS_COUNT);
    expect(Math.max(...ALL_CLASSES)).toBeLessThan(ANY_CLASS);
    for (const s of samples) expect(ALL_CLASSES).toContain(classOf(s.flags, s.lateUs, s.load));
  });

  it("a filter's classes hold exactly the samples it keeps", () => {
    const filters: ClassFilter[] = [
      {},
      { visibleOnly: true },
      ...MAX_LATE_MS_CHOICES.map((maxLateMs) => ({ maxLateMs })),
      { loads: [0] },
      { loads: [1, 2, 3, 4, 5] },
      { loads: [0, 1, 2, 3, 4, 5] },
      { visibleOnly: true, maxLateMs: 50, loads: [0] },
    ];
    for (const f of filters) {
      const classes = new Set(classesFor(f));
      for (const s of samples)
        expect(classes.has(classOf(s.flags, s.lateUs, s.load)), `${JSON.stringify(f)} ${JSON.stringify(s)}`).toBe(
          keeps(f, s),
        );
    }
  });

  it("cannot answer a single phase, or a lateness that is not a class bound: those read raw samples", () => {
    expect(classesFor({ loads: [2] })).toBeNull();
    expect(classesFor({ loads: [0, 2] })).toBeNull();
    expect(classesFor({ maxLateMs: 7 })).toBeNull();
    expect(classesFor({})).toHaveLength(CLASS_COUNT);
  });
});
