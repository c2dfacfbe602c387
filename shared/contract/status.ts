// GET /api/status: the public status of each server the deployment probes,
// the same facts /status shows as HTML. Public by design: no client, label or
// address appears anywhere in it (docs/alerts.md, "The status page").
import { z } from "../zod.js";
import { INCIDENT_KINDS, VERDICTS } from "./incidents.js";
import { count, ms, nullableMs } from "./fields.js";

export const HEALTH_STATES = ["up", "degraded", "down", "unknown"] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/** Days the status page covers: one bar per day, the 90-day uptime. */
export const STATUS_DAYS = 90;

/** A share of probes that answered, 0..1; null with no probes in the window. */
const share = z.nullable(z.number().check(z.minimum(0), z.maximum(1)));

/** One UTC day of one server. */
export const statusDaySchema = z.strictObject({
  /** The day's start (epoch ms, UTC midnight). */
  start: ms,
  /** ok / (ok + failures) of the probes to this server that day (every client, every method). */
  uptime: share,
  /** Probes judged that day (ok + failures). */
  probes: count,
  /** Latency percentiles of that day's ok probes (browser methods: XHR, JSONP, WebSocket), nearest rank within ±1 % (ms). */
  p50: nullableMs,
  p99: nullableMs,
  /** How long this server was down that day, by its incidents (ms). */
  downMs: count,
  /** Incidents of this server that overlap the day. */
  incidents: count,
});
export type StatusDay = z.infer<typeof statusDaySchema>;

/** An incident as the public page tells it: no client, label or address. */
export const publicIncidentSchema = z.strictObject({
  id: z.string(),
  kind: z.enum(INCIDENT_KINDS),
  start: ms,
  end: nullableMs,
  verdict: z.enum(VERDICTS),
  summary: z.string(),
});
export type PublicIncident = z.infer<typeof publicIncidentSchema>;

export const statusServerSchema = z.strictObject({
  name: z.string(),
  state: z.enum(HEALTH_STATES),
  /** Epoch ms since which the state holds; null when not known (no evidence yet). */
  since: nullableMs,
  uptime: z.strictObject({ "24h": share, "7d": share, "90d": share }),
  /** The last STATUS_DAYS UTC days, oldest first; the last one is today so far. */
  days: z.array(statusDaySchema),
  /** This server's incidents of the covered days, newest first (those about one client's own path are left out). */
  incidents: z.array(publicIncidentSchema),
});
export type StatusServer = z.infer<typeof statusServerSchema>;

export const statusResponseSchema = z.strictObject({
  /** When this answer was computed (epoch ms); it may be served from a cache for a few seconds. */
  generatedAt: ms,
  servers: z.array(statusServerSchema),
});
export type StatusResponse = z.infer<typeof statusResponseSchema>;
