// The ingest's hand-written sample reader against the contract it stands in
// for: sampleSchema (zod). Same verdict on every generated sample, valid ones
// and ones with one field broken, added or removed; the same value when both
// accept.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseWith, sampleSchema } from "../../shared/contract/index.js";
import { EPOCH_MS_MAX, EPOCH_MS_MIN, LATENCY_MS_MAX } from "../../shared/contract/fields.js";
import { SAMPLE_REASONS } from "../../shared/contract/reasons.js";
import { readSample } from "../../shared/contract/sample-reader.js";
import { REASON_USES } from "../../shared/contract/sample-pairs.js";
import { BEST2_LEGS, METHODS, OUTCOMES } from "../../shared/methods.js";
import { STRESS_PHASES } from "../../shared/stress/phases.js";

const FIELDS = [
  "seq",
  "t",
  "method",
  "target",
  "ms",
  "outcome",
  "scheduledT",
  "reason",
  "winner",
  "otherMs",
  "otherOutcome",
  "minrtt",
  "lateMs",
  "visibleAtSend",
  "visibleAtReply",
  "hiddenMs",
  "froze",
  "fresh",
  "serverLagMs",
  "serverMs",
  "reportInFlight",
  "stressRun",
  "load",
] as const;

/** Values near every boundary the contract draws, of every JSON type. */
const anyValue = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -0,
    -1,
    0.5,
    1,
    EPOCH_MS_MIN,
    EPOCH_MS_MIN - 1,
    EPOCH_MS_MAX,
    EPOCH_MS_MAX + 1,
    EPOCH_MS_MIN + 0.5,
    LATENCY_MS_MAX,
    LATENCY_MS_MAX + 0.001,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    "",
    "A",
    "A+B",
    "-A",
    "a".repeat(65),
    "a".repeat(66),
    "ok",
    "best2",
    "tcprtt",
    "ws",
    "network",
    "Network",
    [],
    {},
    "1",
    "download",
    "Download",
    "run-0001",
    "short",
  ),
  fc.double(),
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.constantFrom<unknown>(...METHODS, ...OUTCOMES, ...BEST2_LEGS, ...SAMPLE_REASONS, ...STRESS_PHASES),
);

/** A sample the contract accepts, of any method and outcome: its fields as they go together (sample-pairs.ts). */
const validSample = fc
  .record({
    seq: fc.integer({ min: 0, max: 1e9 }),
    // Up to 5 ms short of the bound: a tick may fire up to 5 ms early, so scheduledT may be t + 5.
    t: fc.integer({ min: EPOCH_MS_MIN + 1000, max: EPOCH_MS_MAX - 5 }),
    method: fc.constantFrom(...METHODS),
    server: fc.constantFrom("A", "B", "eu-west.1"),
    outcome: fc.constantFrom(...OUTCOMES),
    ms: fc.double({ min: 0, max: LATENCY_MS_MAX, noNaN: true }),
    reasonPick: fc.nat(),
    schedule: fc.option(
      fc.record({ dueBeforeMs: fc.integer({ min: -5, max: 1000 }), timed: fc.boolean() }, { requiredKeys: [] }),
    ),
    optional: fc.record(
      {
        visibleAtSend: fc.boolean(),
        visibleAtReply: fc.boolean(),
        hiddenMs: fc.integer({ min: 0, max: 1e7 }),
        froze: fc.boolean(),
        fresh: fc.boolean(),
        serverLagMs: fc.double({ min: 0, max: 100, noNaN: true }),
        serverMs: fc.double({ min: 0, max: 100, noNaN: true }),
        reportInFlight: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    race: fc.record({
      winner: fc.constantFrom(...BEST2_LEGS),
      otherMs: fc.double({ min: 0, max: 5000, noNaN: true }),
      otherOutcome: fc.constantFrom("ok", "timeout", "error"),
    }),
    minrtt: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: undefined }),
    stress: fc.option(
      fc.record({ stressRun: fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/), load: fc.constantFrom(...STRESS_PHASES) }),
      { nil: undefined },
    ),
  })
  .map(({ server, reasonPick, schedule, optional, race, minrtt, stress, ...s }) => {
    const reasons = REASON_USES[s.method][s.outcome];
    const reason =
      reasonPick % (reasons.length + 1) === reasons.length ? undefined : reasons[reasonPick % (reasons.length + 1)];
    const otherOk = race.otherOutcome === "ok" && (s.outcome !== "ok" || reason === undefined);
    return {
      ...s,
      target: s.method === "best2" ? `${server}+A` : server,
      ms: s.outcome === "error" || s.outcome === "skipped" ? null : s.ms,
      ...(reason === undefined ? {} : { reason }),
      ...(schedule === null
        ? {}
        : {
            scheduledT: s.t - (schedule.dueBeforeMs ?? 0),
            ...(schedule.timed === true ? { lateMs: Math.max(0, schedule.dueBeforeMs ?? 0) } : {}),
          }),
      ...optional,
      ...(s.method === "best2"
        ? {
            ...(s.outcome === "ok" ? { winner: race.winner } : {}),
            otherOutcome: otherOk ? "ok" : race.otherOutcome === "ok" ? "error" : race.otherOutcome,
            otherMs: otherOk ? race.otherMs : null,
          }
        : {}),
      ...(s.method === "tcprtt" && minrtt !== undefined ? { minrtt } : {}),
      ...stress,
    };
  });

/** A sample with one field changed, added or removed, or not an object at all. */
const mutatedSample = fc.oneof(
  fc
    .tuple(validSample, fc.constantFrom(...FIELDS, "extra", "__proto__", "constructor"), anyValue)
    .map(([s, key, value]) => {
      const copy: Record<string, unknown> = { ...s };
      Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
      return copy;
    }),
  fc.tuple(validSample, fc.constantFrom(...FIELDS)).map(([s, key]) => {
    const copy: Record<string, unknown> = { ...s };
    delete copy[key];
    return copy;
  }),
  anyValue,
);

const verdicts = (input: unknown) => ({ zod: parseWith(sampleSchema, input), reader: readSample(input) });

describe("readSample", () => {
  it("accepts every sample the contract accepts, as the same value", () => {
    fc.assert(
      fc.property(validSample, (s) => {
        const { zod, reader } = verdicts(s);
        expect(zod.ok).toBe(true);
        expect(reader).toEqual(zod);
      }),
      { numRuns: 1000 },
    );
  });

  it("gives the contract's verdict on samples with one field changed, added or removed", () => {
    let refused = 0;
    fc.assert(
      fc.property(mutatedSample, (input) => {
        const { zod, reader } = verdicts(input);
        expect(reader.ok, JSON.stringify(input)).toBe(zod.ok);
        if (zod.ok) expect(reader).toEqual(zod);
        else refused++;
      }),
      { numRuns: 3000 },
    );
    // Mutations that break the contract did happen, and both refused them.
    expect(refused).toBeGreaterThan(600);
  });

  it("names the field that is wrong", () => {
    const good = { seq: 1, t: EPOCH_MS_MIN, method: "xhr", target: "A", ms: 1, outcome: "ok" };
    expect(readSample(good)).toEqual({ ok: true, value: good });
    expect(readSample({ ...good, ms: -1 })).toEqual({ ok: false, error: "ms: expected a number from 0 to 86400000" });
    expect(readSample({ ...good, colour: "red" })).toEqual({ ok: false, error: 'unrecognized key: "colour"' });
    const { outcome: _, ...noOutcome } = good;
    expect(readSample(noOutcome)).toEqual({ ok: false, error: "outcome: required" });
    expect(readSample({ ...good, ms: null })).toEqual({ ok: false, error: "an ok sample needs ms" });
    expect(readSample({ ...good, winner: "ws" })).toEqual({
      ok: false,
      error: "winner/otherMs/otherOutcome belong to best2 samples",
    });
    expect(readSample({ ...good, load: "download" })).toEqual({ ok: false, error: "stressRun and load go together" });
    expect(readSample({ ...good, stressRun: "run-0001", load: "Download" })).toEqual({
      ok: false,
      error: "load: expected one of idle, download, upload, bidirectional, cooldown",
    });
  });
});
