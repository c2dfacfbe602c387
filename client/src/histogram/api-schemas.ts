// Runtime checks of what the chart endpoints answer. The shapes are the
// contract in shared/charts.ts; each schema is tied to its interface so the
// two cannot drift apart without a type error.
import { z } from "zod";
import type {
  CdfResponse,
  ClientsResponse,
  HeatmapResponse,
  HistogramResponse,
  TimeseriesResponse,
} from "../../../shared/charts.js";
import type { StatsResponse } from "../../../shared/protocol.js";

const ms = z.number().finite();
const count = z.number().int().min(0);
const nullableMs = ms.nullable();
const key = { method: z.string().max(32), target: z.string().max(80) };

export const statsResponseSchema: z.ZodType<StatsResponse> = z.object({
  from: ms,
  to: ms,
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

export const histogramResponseSchema: z.ZodType<HistogramResponse> = z.object({
  from: ms,
  to: ms,
  binsPerDecade: z.number().int().min(1),
  edges: z.array(ms),
  series: z.array(z.object({ ...key, count, failures: count, counts: z.array(count) })),
});

export const cdfResponseSchema: z.ZodType<CdfResponse> = z.object({
  from: ms,
  to: ms,
  series: z.array(
    z.object({
      ...key,
      count,
      points: z.array(z.tuple([ms, z.number().min(0).max(1)])),
      markers: z.array(z.object({ p: z.number().min(0).max(100), ms })).optional(),
    }),
  ),
});

export const timeseriesResponseSchema: z.ZodType<TimeseriesResponse> = z.object({
  from: ms,
  to: ms,
  bucketMs: z.number().int().min(1),
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

export const heatmapResponseSchema: z.ZodType<HeatmapResponse> = z.object({
  from: ms,
  to: ms,
  bucketMs: z.number().int().min(1),
  binsPerDecade: z.number().int().min(1),
  t: z.array(ms),
  edges: z.array(ms),
  series: z.array(z.object({ ...key, counts: z.array(z.array(count)) })),
});

export const clientsResponseSchema: z.ZodType<ClientsResponse> = z.object({
  clients: z.array(
    z.object({
      id: z.string(),
      label: z.string().nullable(),
      browser: z.string().nullable(),
      firstSeen: ms,
      lastSeen: ms,
      sessions: count,
    }),
  ),
});
