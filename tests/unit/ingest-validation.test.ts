// POST /api/samples is parsed from unknown: each kind of bad batch must be refused whole.
import { describe, expect, it } from "vitest";
import { BATCH_SAMPLES_MAX, parseWith, sampleBatchSchema } from "../../shared/contract/index.js";

const T = 1_763_000_000_000;
const sample = (over: Record<string, unknown> = {}) => ({
  seq: 0,
  t: T,
  method: "xhr",
  target: "A",
  ms: 12.5,
  outcome: "ok",
  ...over,
});
const batch = (samples: unknown[], over: Record<string, unknown> = {}) => ({
  clientId: "client_0001",
  sessionId: "session_0001",
  samples,
  ...over,
});
const parse = (input: unknown) => parseWith(sampleBatchSchema, input);

describe("ingest validation", () => {
  it("accepts a valid batch of every method and outcome", () => {
    const r = parse(
      batch(
        [
          sample(),
          sample({ seq: 1, method: "jsonp", outcome: "timeout", ms: 5000 }),
          sample({ seq: 2, method: "ws", outcome: "error", ms: null, reason: "ws-closed" }),
          sample({ seq: 3, method: "best2", target: "A+B", winner: "ws", otherMs: 14, otherOutcome: "ok" }),
          sample({ seq: 4, method: "ws", outcome: "skipped", ms: null, reason: "frozen", scheduledT: T - 10 }),
          sample({ seq: 5, method: "ping", ms: 0.05 }),
          sample({ seq: 6, method: "tcprtt", ms: 9.1, minrtt: 0.02 }),
          sample({
            seq: 7,
            lateMs: 3,
            visibleAtSend: true,
            visibleAtReply: false,
            hiddenMs: 0,
            froze: false,
            fresh: true,
            serverLagMs: 0.4,
          }),
        ],
        { label: "laptop" },
      ),
    );
    expect(r.ok).toBe(true);
  });

  const invalid: [string, unknown, RegExp][] = [
    ["not an object", "samples", /expected object/i],
    ["missing clientId", { sessionId: "session_0001", samples: [sample()] }, /clientId/],
    ["short clientId", batch([sample()], { clientId: "abc" }), /clientId/],
    ["clientId with symbols", batch([sample()], { clientId: "client;drop" }), /clientId/],
    ["empty samples", batch([]), /samples/],
    ["too many samples", batch(Array.from({ length: BATCH_SAMPLES_MAX + 1 }, (_, i) => sample({ seq: i }))), /samples/],
    ["unknown top-level field", batch([sample()], { extra: 1 }), /unrecognized|extra/i],
    ["unknown sample field", batch([sample({ evil: true })]), /unrecognized|evil/i],
    ["unknown method", batch([sample({ method: "icmp" })]), /method/],
    ["unknown outcome", batch([sample({ outcome: "slow" })]), /outcome/],
    ["negative latency", batch([sample({ ms: -1 })]), /ms/],
    ["NaN-like latency", batch([sample({ ms: "12" })]), /ms/],
    ["ok without ms", batch([sample({ ms: null })]), /ok sample needs ms/],
    ["error with ms", batch([sample({ outcome: "error", ms: 3 })]), /ms null/],
    ["t in seconds", batch([sample({ t: 1_763_000_000 })]), /t/],
    ["fractional seq", batch([sample({ seq: 1.5 })]), /seq/],
    ["negative seq", batch([sample({ seq: -1 })]), /seq/],
    ["duplicate seq in one batch", batch([sample(), sample()]), /seq 0 appears twice/],
    ["bad target", batch([sample({ target: "A B" })]), /target/],
    ["winner on a non-best2 sample", batch([sample({ winner: "ws" })]), /best2/],
    ["minrtt on a non-tcprtt sample", batch([sample({ minrtt: 1 })]), /minrtt/],
    ["label too long", batch([sample()], { label: "x".repeat(65) }), /label/],
  ];
  it.each(invalid)("rejects %s with a message", (_what, input, message) => {
    const r = parse(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });
});
