// Runtime checks of what the forensics endpoints answer (contract:
// shared/forensics/api.ts), each tied to its interface so they cannot drift.
import type { AttributionResponse, CompareResponse, FanoutResponse, PeriodicityResponse } from "../../../shared/forensics/api.js";
import { z } from "../../../shared/zod.js";

const num = z.number();
const nullableNum = z.nullable(num);
const bool = z.boolean();
const nullableBool = z.nullable(bool);
const str = z.string().check(z.maxLength(400));

const forensicSample = {
  method: str,
  target: str,
  t: num,
  ms: nullableNum,
  outcome: str,
  lateMs: nullableNum,
  visibleAtSend: nullableBool,
  visibleAtReply: nullableBool,
  hiddenMs: nullableNum,
  froze: nullableBool,
  fresh: nullableBool,
  serverMs: nullableNum,
  serverLagMs: nullableNum,
};

export const attributionResponseSchema: z.core.$ZodType<AttributionResponse> = z.object({
  sample: z.nullable(z.object({ ...forensicSample, client: str })),
  breakdown: z.nullable(
    z.object({ lateMs: nullableNum, totalMs: nullableNum, serverMs: nullableNum, pathMs: nullableNum, pathMethod: z.nullable(str), restMs: nullableNum }),
  ),
  verdict: z.nullable(
    z.object({
      cause: z.enum(["client", "server", "network", "http", "unexplained", "normal"]),
      target: z.nullable(str),
      text: str,
      evidence: z.array(str),
    }),
  ),
  neighbours: z.array(z.object(forensicSample)),
  typicalMs: z.record(z.string(), num),
});

const interval = z.object({ estimate: num, lo: num, hi: num });
const side = z.object({ label: str, from: num, to: num, count: num });

export const compareResponseSchema: z.core.$ZodType<CompareResponse> = z.object({
  a: side,
  b: side,
  comparison: z.nullable(
    z.object({
      countA: num,
      countB: num,
      medianDiff: interval,
      p99Diff: interval,
      rank: z.object({ u: num, p: num, method: z.enum(["exact", "asymptotic"]), z: nullableNum }),
      confidence: num,
      sentence: z.string().check(z.maxLength(2000)),
    }),
  ),
  capped: bool,
});

const periodicity = z.object({
  periodMs: nullableNum,
  strength: num,
  autocorrelation: nullableNum,
  p: num,
  buckets: num,
  firstPeakMs: nullableNum,
});

export const periodicityResponseSchema: z.core.$ZodType<PeriodicityResponse> = z.object({
  from: num,
  to: num,
  bucketMs: num,
  t0: num,
  series: z.array(z.object({ method: str, target: str, p90: periodicity, p99: periodicity })),
  pairs: z.array(z.object({ a: str, b: str, r: num, n: num, p: num, aligned: bool })),
});

const hedge = { requestsPerCall: num, p50: nullableNum, p99: nullableNum, p999: nullableNum, viewsSeeingP99: num };

export const fanoutResponseSchema: z.core.$ZodType<FanoutResponse> = z.object({
  method: str,
  primary: str,
  secondary: str,
  report: z.object({
    p99Ms: nullableNum,
    fanout: num,
    viewsSeeingP99: num,
    single: z.object(hedge),
    secondary: z.object(hedge),
    bestOfTwo: z.object(hedge),
    hedged: z.object({ ...hedge, delayMs: num }),
    pairs: num,
    race: z.nullable(z.object({ ...hedge, target: str, count: num })),
  }),
});
