// GET /api/incidents: the outages and degradations each server opened and
// closed by itself from what its pages and its own probes saw (server/health/),
// with where the fault lies. The same shapes travel to the alerts (HealthFeed).
import { z } from "../zod.js";
import { EPOCH_MS_MAX, count, ms, nullableMs } from "./fields.js";
import { queryIntIn } from "./query-string.js";

export const INCIDENT_KINDS = ["down", "degraded"] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

/**
 * Where the fault lies (docs/alerts.md, "Where the fault lies"):
 * - server: failing from every reporting client and from the peer server's own probe;
 * - client: one client (or a few) only, while the others are fine: that client or its path;
 * - network: the path: ICMP ping to the failing client fails too, or only the servers' own probe fails;
 * - http: HTTP probes fail or are slow while the WebSocket to the same server is fine;
 * - browser: the clients' own pages were late (busy main thread), not the server;
 * - unknown: too little evidence to say (one client, nothing to compare with).
 */
export const VERDICTS = ["server", "client", "network", "http", "browser", "unknown"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The worst moment of an incident. */
export const incidentPeakSchema = z.strictObject({
  /** Most sources (clients, and the peer server's own probe) failing or slow at once. */
  affected: count,
  /** Sources reporting at that moment. */
  reporting: count,
  /** Highest share of failed probes among the affected sources' judged probes, 0..1. */
  failureShare: z.number().check(z.minimum(0), z.maximum(1)),
  /** Slowest median latency of an affected source's judged probes (ms); null when only failures were seen. */
  latencyMs: nullableMs,
  /** Its usual median before the incident (ms), for comparison; null when unknown. */
  typicalMs: nullableMs,
});
export type IncidentPeak = z.infer<typeof incidentPeakSchema>;

export const incidentSchema = z.strictObject({
  id: z.string().check(z.maxLength(160)),
  /** The server that is down or degraded. */
  target: z.string(),
  kind: z.enum(INCIDENT_KINDS),
  /** Epoch ms of the first failing or slow probe of the episode. */
  start: ms,
  /** Epoch ms of the first good probe after it; null while open. */
  end: nullableMs,
  verdict: z.enum(VERDICTS),
  /** One sentence, e.g. "B down: failing from 3 of 3 clients and from A's own probe since 05:14:07 UTC". */
  summary: z.string(),
  /** Methods that failed or were slow (xhr, jsonp, ws, peerhttp, peerws). */
  methods: z.array(z.string()),
  /** Public ids of the affected clients (never a clientId, label or address). */
  clients: z.array(z.string()),
  /** The facts the verdict was built from, in the order they were read. */
  evidence: z.array(z.string()),
  peak: incidentPeakSchema,
  /** The server whose health monitor saw it (on one PostgreSQL, each server opens its own). */
  observer: z.string(),
});
export type Incident = z.infer<typeof incidentSchema>;

/** Incidents one answer lists at most (the newest are kept; `truncated` says so). */
export const INCIDENTS_MAX = 1000;

/**
 * GET /api/incidents?from=MS&to=MS: incidents that overlap [from, to]
 * (epoch ms; default everything up to now). from after to is a 400.
 */
export const incidentsQuerySchema = z
  .strictObject({
    from: z.optional(queryIntIn(0, EPOCH_MS_MAX)),
    to: z.optional(queryIntIn(0, EPOCH_MS_MAX)),
  })
  .check(
    z.refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
      message: "from must not be after to",
    }),
  );
export type IncidentsQuery = z.infer<typeof incidentsQuerySchema>;

export const incidentsResponseSchema = z.strictObject({
  from: ms,
  to: ms,
  /** Oldest first. */
  incidents: z.array(incidentSchema),
  /** More than INCIDENTS_MAX overlap the range: the oldest were left out. */
  truncated: z.boolean(),
});
export type IncidentsResponse = z.infer<typeof incidentsResponseSchema>;
