// The wire protocol, version 1: every message that crosses a process
// boundary is declared here and parsed from `unknown` on arrival.
import { z } from "zod";
import { sampleFilterQueryShape } from "./charts.js";
import { BEST2_LEGS, METHODS, OUTCOMES } from "./methods.js";
import { CLIENT_TOKEN_PATTERN, SERVER_NAME_PATTERN, TARGET_PATTERN } from "./names.js";
import { fail, ok, type Result } from "./result.js";

export const PROTOCOL_VERSION = 1;

/** Largest batch one POST /api/samples may carry. */
export const BATCH_SAMPLES_MAX = 1000;
/** Any latency above this (ms) is a bug, not a measurement: one day. */
export const LATENCY_MS_MAX = 86_400_000;
/** Epoch-ms bounds: 2001-09-09 .. 2286-11-20, catches seconds-vs-ms mix-ups. */
export const EPOCH_MS_MIN = 1_000_000_000_000;
export const EPOCH_MS_MAX = 9_999_999_999_999;
export const REASON_CHARS_MAX = 200;
export const LABEL_CHARS_MAX = 64;

const epochMs = z.number().int().min(EPOCH_MS_MIN).max(EPOCH_MS_MAX);
const latencyMs = z.number().finite().min(0).max(LATENCY_MS_MAX);
const token = z.string().regex(CLIENT_TOKEN_PATTERN);

export const sampleSchema = z
  .object({
    /** Per-session sequence number; (sessionId, seq) makes delivery idempotent. */
    seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    /** When the probe was actually sent (epoch ms, client clock; server clock for baselines). */
    t: epochMs,
    method: z.enum(METHODS),
    /** Server name, or "A+B" for best-of-two. */
    target: z.string().regex(TARGET_PATTERN),
    /** Latency; null unless outcome is ok or timeout (a timeout carries the timeout value). */
    ms: latencyMs.nullable(),
    outcome: z.enum(OUTCOMES),
    /** When the tick was due (epoch ms); `t - scheduledT` is the client's own lateness. */
    scheduledT: epochMs.optional(),
    /** Why a sample failed or was skipped, e.g. "frozen", "ws-closed", "http-503". */
    reason: z.string().max(REASON_CHARS_MAX).optional(),
    /** best2: which leg answered first. */
    winner: z.enum(BEST2_LEGS).optional(),
    /** best2: the losing leg's latency from the race's start, when it answered. */
    otherMs: latencyMs.nullable().optional(),
    otherOutcome: z.enum(OUTCOMES).optional(),
    /** tcprtt: the kernel's minimum RTT on the connection (ms). */
    minrtt: latencyMs.optional(),
    /** How late the tick fired against its due time (ms). */
    lateMs: z.number().finite().min(0).max(LATENCY_MS_MAX).optional(),
    /** Page visibility when the probe was sent / answered. */
    visibleAtSend: z.boolean().optional(),
    visibleAtReply: z.boolean().optional(),
    /** How long the page had been hidden when the probe was sent (ms, 0 if visible). */
    hiddenMs: z.number().finite().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    /** The page was frozen (or the machine asleep) between send and reply. */
    froze: z.boolean().optional(),
    /** First sample on a new connection (WebSocket reconnect, new TCP connection for HTTP). */
    fresh: z.boolean().optional(),
    /** The echo server's own event-loop delay when it answered (ms, from Server-Timing). */
    serverLagMs: z.number().finite().min(0).max(LATENCY_MS_MAX).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.outcome === "ok" && s.ms === null) ctx.addIssue({ code: "custom", message: "an ok sample needs ms" });
    if ((s.outcome === "error" || s.outcome === "skipped") && s.ms !== null)
      ctx.addIssue({ code: "custom", message: `a ${s.outcome} sample has ms null` });
    if (s.method !== "best2" && (s.winner !== undefined || s.otherMs !== undefined || s.otherOutcome !== undefined))
      ctx.addIssue({ code: "custom", message: "winner/otherMs/otherOutcome belong to best2 samples" });
    if (s.minrtt !== undefined && s.method !== "tcprtt")
      ctx.addIssue({ code: "custom", message: "minrtt belongs to tcprtt samples" });
  });
export type Sample = z.infer<typeof sampleSchema>;

export const sampleBatchSchema = z
  .object({
    clientId: token,
    sessionId: token,
    label: z.string().max(LABEL_CHARS_MAX).optional(),
    samples: z.array(sampleSchema).min(1).max(BATCH_SAMPLES_MAX),
  })
  .strict()
  .superRefine((b, ctx) => {
    const seen = new Set<number>();
    for (const s of b.samples) {
      if (seen.has(s.seq)) {
        ctx.addIssue({ code: "custom", message: `seq ${s.seq} appears twice in one batch` });
        return;
      }
      seen.add(s.seq);
    }
  });
export type SampleBatch = z.infer<typeof sampleBatchSchema>;

/**
 * POST /api/samples as the server first reads it: the envelope strictly, the
 * samples one by one afterwards, so a refusal can name exactly the bad ones.
 */
export const sampleBatchEnvelopeSchema = z
  .object({
    clientId: token,
    sessionId: token,
    label: z.string().max(LABEL_CHARS_MAX).optional(),
    samples: z.array(z.unknown()).min(1).max(BATCH_SAMPLES_MAX),
  })
  .strict();

/** One sample of a refused batch that can never be stored, by its place in the batch. */
export const rejectedSampleSchema = z.object({
  index: z.number().int().min(0).max(BATCH_SAMPLES_MAX - 1),
  /** The sample's seq when it had a readable one. */
  seq: z.number().int().min(0).nullable(),
  error: z.string().max(REASON_CHARS_MAX + 100),
});
export type RejectedSample = z.infer<typeof rejectedSampleSchema>;

/** 400 INVALID_SAMPLES: nothing of the batch was stored; without the samples named here it would be. */
export const sampleRefusalSchema = z.object({
  error: z.string(),
  code: z.literal("INVALID_SAMPLES"),
  rejected: z.array(rejectedSampleSchema).min(1).max(BATCH_SAMPLES_MAX),
});
export type SampleRefusal = z.infer<typeof sampleRefusalSchema>;

export interface IngestResult {
  /** Samples stored by this request. */
  accepted: number;
  /** Samples already stored by an earlier delivery of the same (sessionId, seq). */
  duplicates: number;
}

export const serverInfoSchema = z.object({
  name: z.string().regex(SERVER_NAME_PATTERN),
  /** Base URL the page uses for this server's echo paths; "" means the page's own origin. */
  url: z.string().max(2048),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

export const baselineStatusSchema = z.object({
  available: z.boolean(),
  /** Why the baseline is unavailable, and how to fix it. */
  reason: z.string().optional(),
});
export type BaselineStatus = z.infer<typeof baselineStatusSchema>;

/** GET /api/config: what a page needs to start probing. */
export const configSchema = z.object({
  protocol: z.literal(PROTOCOL_VERSION),
  /** This server's own name. */
  name: z.string().regex(SERVER_NAME_PATTERN),
  /** servers[0] is this server (the home server); the rest are peers. */
  servers: z.array(serverInfoSchema).min(1).max(8),
  intervalMs: z.number().int().positive(),
  timeoutMs: z.number().int().positive(),
  baselines: z.record(z.string(), baselineStatusSchema),
});
export type Config = z.infer<typeof configSchema>;

// ---- WebSocket /ws messages -------------------------------------------------

/** Page → server. An echo message is sent back byte for byte. */
export const clientWsMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("echo"), id: z.number().int().min(0) }).strict(),
  z
    .object({
      type: z.literal("hello"),
      clientId: token,
      sessionId: token,
    })
    .strict(),
]);
export type ClientWsMessage = z.infer<typeof clientWsMessageSchema>;

/** A baseline measured by a server, pushed to the page so its reports carry it home. */
export const baselineSampleSchema = z
  .object({
    method: z.enum(["ping", "wsping", "tcprtt"]),
    /** Server-side id, unique per connection, so a page never reports one twice. */
    id: z.number().int().min(0),
    t: epochMs,
    target: z.string().regex(SERVER_NAME_PATTERN),
    ms: latencyMs.nullable(),
    outcome: z.enum(OUTCOMES),
    minrtt: latencyMs.optional(),
    reason: z.string().max(REASON_CHARS_MAX).optional(),
  })
  .strict();
export type BaselineSample = z.infer<typeof baselineSampleSchema>;

/** Server → page (echo replies are the page's own message, not listed here). */
export const serverWsMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("echo"), id: z.number().int().min(0) }).strict(),
  z.object({ type: z.literal("welcome"), name: z.string().regex(SERVER_NAME_PATTERN) }).strict(),
  z.object({ type: z.literal("baseline"), samples: z.array(baselineSampleSchema).max(100) }).strict(),
]);
export type ServerWsMessage = z.infer<typeof serverWsMessageSchema>;

// ---- Queries ------------------------------------------------------------------

/** Query-string number: "123" → 123; anything else is an error. */
const queryInt = z
  .string()
  .regex(/^-?\d{1,16}$/, "must be an integer")
  .transform(Number);

/**
 * GET /api/stats: from, to, client as before, plus the chart endpoints'
 * filters (method, target, visible, maxLateMs, exclude; see shared/charts.ts).
 */
export const statsQuerySchema = z
  .object({
    ...sampleFilterQueryShape,
    from: queryInt.optional(),
    to: queryInt.optional(),
    client: token.optional(),
  })
  .strict()
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: "from must not be after to",
  });
export type StatsQuery = z.infer<typeof statsQuerySchema>;

export interface StatsRow {
  method: string;
  target: string;
  /** Samples in the latency figures below: the ok ones (with timeouts=1, the timeouts too, at their timeout value). */
  count: number;
  /** timeout + error samples. */
  failures: number;
  /** Ticks recorded as skipped (frozen page, asleep machine, probe cap). */
  skipped: number;
  min: number | null;
  p10: number | null;
  p50: number | null;
  mean: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
}

export interface StatsResponse {
  from: number;
  to: number;
  rows: StatsRow[];
}

/** Parse an unknown value with a schema into a Result with a readable message. */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown): Result<T> {
  const r = schema.safeParse(input);
  if (r.success) return ok(r.data);
  const issue = r.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return fail(`${where}${issue?.message ?? "invalid"}`);
}
