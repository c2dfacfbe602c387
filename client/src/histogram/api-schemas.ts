// Runtime checks of what the chart endpoints answer. The shapes are the
// contract in shared/charts.ts; each schema is tied to its interface so the
// two cannot drift apart without a type error.
import { z } from "../../../shared/zod.js";
import type {
  CdfResponse,
  ClientsResponse,
  HeatmapResponse,
  HistogramResponse,
  TimeseriesResponse,
} from "../../../shared/charts.js";
import type { StatsResponse } from "../../../shared/protocol.js";

const ms = z.number();
const count = z.int().check(z.minimum(0));
const nullableMs = z.nullable(ms);
const key = { method: z.string().check(z.maxLength(32)), target: z.string().check(z.maxLength(80)) };
const positiveInt = z.int().check(z.minimum(1));

export const statsResponseSchema: z.core.$ZodType<StatsResponse> = z.object({
  from: ms,
  to: ms,
  timerResolutionMs: z.nullable(z.number().check(z.minimum(0))),
  rows: z.array(
    z.object({
      ...key,
      count,
      failures: count,
      skipped: count,
      min: nullableMs,
      p10: nullableMs,
      p50: nullableMs,
      mean: nullableMs,
      p90: nullableMs,
      p99: nullableMs,
      p999: nullableMs,
      max: nullableMs,
    }),
  ),
});

export const histogramResponseSchema: z.core.$ZodType<HistogramResponse> = z.object({
  from: ms,
  to: ms,
  binsPerDecade: positiveInt,
  edges: z.array(ms),
  series: z.array(z.object({ ...key, count, failures: count, counts: z.array(count) })),
});

export const cdfResponseSchema: z.core.$ZodType<CdfResponse> = z.object({
  from: ms,
  to: ms,
  series: z.array(
    z.object({
      ...key,
      count,
      points: z.array(z.tuple([ms, z.number().check(z.minimum(0), z.maximum(1))])),
      markers: z.optional(z.array(z.object({ p: z.number().check(z.minimum(0), z.maximum(100)), ms }))),
    }),
  ),
});

export const timeseriesResponseSchema: z.core.$ZodType<TimeseriesResponse> = z.object({
  from: ms,
  to: ms,
  bucketMs: positiveInt,
  t: z.array(ms),
  series: z.array(
    z.object({
      ...key,
      count: z.array(count),
      failures: z.array(count),
      p50: z.array(nullableMs),
      p90: z.array(nullableMs),
      p99: z.array(nullableMs),
      max: z.array(nullableMs),
    }),
  ),
});

export const heatmapResponseSchema: z.core.$ZodType<HeatmapResponse> = z.object({
  from: ms,
  to: ms,
  bucketMs: positiveInt,
  binsPerDecade: positiveInt,
  t: z.array(ms),
  edges: z.array(ms),
  series: z.array(z.object({ ...key, counts: z.array(z.array(count)) })),
});

export const clientsResponseSchema: z.core.$ZodType<ClientsResponse> = z.object({
  clients: z.array(
    z.object({
      id: z.string(),
      label: z.nullable(z.string()),
      browser: z.nullable(z.string()),
      firstSeen: ms,
      lastSeen: ms,
      sessions: count,
    }),
  ),
});
