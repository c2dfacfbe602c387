// The wire protocol, version 1: every message that crosses a process
// boundary is declared here and parsed from `unknown` on arrival.
import { z } from "./zod.js";
import { queryInt, sampleFilterQueryShape } from "./charts.js";
import { BEST2_LEGS, METHODS, OUTCOMES } from "./methods.js";
import { CLIENT_TOKEN_PATTERN, SERVER_NAME_PATTERN, TARGET_PATTERN } from "./names.js";
import { fail, ok, type Result } from "./result.js";

export const PROTOCOL_VERSION = 1;

const ENGLISH = z.locales.en();

/** Largest batch one POST /api/samples may carry. */
export const BATCH_SAMPLES_MAX = 1000;
/** Any latency above this (ms) is a bug, not a measurement: one day. */
export const LATENCY_MS_MAX = 86_400_000;
/** Epoch-ms bounds: 2001-09-09 .. 2286-11-20, catches seconds-vs-ms mix-ups. */
export const EPOCH_MS_MIN = 1_000_000_000_000;
export const EPOCH_MS_MAX = 9_999_999_999_999;
export const REASON_CHARS_MAX = 200;
export const LABEL_CHARS_MAX = 64;
/** Coarser than this (ms) is no high-resolution timer at all. */
export const TIMER_RESOLUTION_MS_MAX = 1000;

const epochMs = z.int().check(z.minimum(EPOCH_MS_MIN), z.maximum(EPOCH_MS_MAX));
const latencyMs = z.number().check(z.minimum(0), z.maximum(LATENCY_MS_MAX));
const token = z.string().check(z.regex(CLIENT_TOKEN_PATTERN));

export const sampleSchema = z
  .strictObject({
    /** Per-session sequence number; (sessionId, seq) makes delivery idempotent. */
    seq: z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER)),
    /** When the probe was actually sent (epoch ms, client clock; server clock for baselines). */
    t: epochMs,
    method: z.enum(METHODS),
    /** Server name, or "A+B" for best-of-two. */
    target: z.string().check(z.regex(TARGET_PATTERN)),
    /** Latency; null unless outcome is ok or timeout (a timeout carries the timeout value). */
    ms: z.nullable(latencyMs),
    outcome: z.enum(OUTCOMES),
    /** When the tick was due (epoch ms); `t - scheduledT` is the client's own lateness. */
    scheduledT: z.optional(epochMs),
    /** Why a sample failed or was skipped, e.g. "frozen", "ws-closed", "http-503". */
    reason: z.optional(z.string().check(z.maxLength(REASON_CHARS_MAX))),
    /** best2: which leg answered first. */
    winner: z.optional(z.enum(BEST2_LEGS)),
    /** best2: the losing leg's latency from the race's start, when it answered. */
    otherMs: z.optional(z.nullable(latencyMs)),
    otherOutcome: z.optional(z.enum(OUTCOMES)),
    /** tcprtt: the kernel's minimum RTT on the connection (ms). */
    minrtt: z.optional(latencyMs),
    /** How late the tick fired against its due time (ms). */
    lateMs: z.optional(latencyMs),
    /** Page visibility when the probe was sent / answered. */
    visibleAtSend: z.optional(z.boolean()),
    visibleAtReply: z.optional(z.boolean()),
    /** How long the page had been hidden when the probe was sent (ms, 0 if visible). */
    hiddenMs: z.optional(z.number().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER))),
    /** The page was frozen (or the machine asleep) between send and reply. */
    froze: z.optional(z.boolean()),
    /** First sample on a new connection (WebSocket reconnect, new TCP connection for HTTP). */
    fresh: z.optional(z.boolean()),
    /** The echo server's own event-loop delay when it answered (ms, from Server-Timing). */
    serverLagMs: z.optional(latencyMs),
    /**
     * The echo server's own time on this probe, request received to answer
     * sent (ms): Server-Timing `app` for XHR and JSONP, the `served` note for WebSocket.
     */
    serverMs: z.optional(latencyMs),
    /**
     * A report (POST /api/samples, keepalive flush) to this probe's server (either
     * server, for best-of-two) was in flight when the probe was sent: the page's
     * own reporting may have shared the probe's moment. Absent on unsent ticks and baselines.
     */
    reportInFlight: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((s, ctx) => {
      if (s.outcome === "ok" && s.ms === null) ctx.addIssue({ code: "custom", message: "an ok sample needs ms" });
      if ((s.outcome === "error" || s.outcome === "skipped") && s.ms !== null)
        ctx.addIssue({ code: "custom", message: `a ${s.outcome} sample has ms null` });
      if (s.method !== "best2" && (s.winner !== undefined || s.otherMs !== undefined || s.otherOutcome !== undefined))
        ctx.addIssue({ code: "custom", message: "winner/otherMs/otherOutcome belong to best2 samples" });
      if (s.minrtt !== undefined && s.method !== "tcprtt")
        ctx.addIssue({ code: "custom", message: "minrtt belongs to tcprtt samples" });
    }),
  );
export type Sample = z.infer<typeof sampleSchema>;

/** What a batch says besides its samples: one shape for the strict batch and the envelope the server reads first. */
const batchEnvelopeShape = {
  clientId: token,
  sessionId: token,
  label: z.optional(z.string().check(z.maxLength(LABEL_CHARS_MAX))),
  /**
   * The smallest step of performance.now() the session's page measured (ms):
   * 0.005 when cross-origin isolated, 0.1 otherwise in Chromium. Every
   * latency of the session is a multiple of it. Sent with each batch of the
   * session; the server keeps the first it receives.
   */
  timerResolutionMs: z.optional(z.number().check(z.minimum(0), z.maximum(TIMER_RESOLUTION_MS_MAX))),
};

export const sampleBatchSchema = z
  .strictObject({
    ...batchEnvelopeShape,
    samples: z.array(sampleSchema).check(z.minLength(1), z.maxLength(BATCH_SAMPLES_MAX)),
  })
  .check(
    z.superRefine((b, ctx) => {
      const seen = new Set<number>();
      for (const s of b.samples) {
        if (seen.has(s.seq)) {
          ctx.addIssue({ code: "custom", message: `seq ${s.seq} appears twice in one batch` });
          return;
        }
        seen.add(s.seq);
      }
    }),
  );
export type SampleBatch = z.infer<typeof sampleBatchSchema>;

/**
 * POST /api/samples as the server first reads it: the envelope strictly, the
 * samples one by one afterwards, so a refusal can name exactly the bad ones.
 */
export const sampleBatchEnvelopeSchema = z.strictObject({
  ...batchEnvelopeShape,
  samples: z.array(z.unknown()).check(z.minLength(1), z.maxLength(BATCH_SAMPLES_MAX)),
});

/** One sample of a refused batch that can never be stored, by its place in the batch. */
export const rejectedSampleSchema = z.object({
  index: z.int().check(z.minimum(0), z.maximum(BATCH_SAMPLES_MAX - 1)),
  /** The sample's seq when it had a readable one. */
  seq: z.nullable(z.int().check(z.minimum(0))),
  error: z.string().check(z.maxLength(REASON_CHARS_MAX + 100)),
});
export type RejectedSample = z.infer<typeof rejectedSampleSchema>;

/** 400 INVALID_SAMPLES: nothing of the batch was stored; without the samples named here it would be. */
export const sampleRefusalSchema = z.object({
  error: z.string(),
  code: z.literal("INVALID_SAMPLES"),
  rejected: z.array(rejectedSampleSchema).check(z.minLength(1), z.maxLength(BATCH_SAMPLES_MAX)),
});
export type SampleRefusal = z.infer<typeof sampleRefusalSchema>;

export interface IngestResult {
  /** Samples stored by this request. */
  accepted: number;
  /** Samples already stored by an earlier delivery of the same (sessionId, seq). */
  duplicates: number;
}

export const serverInfoSchema = z.object({
  name: z.string().check(z.regex(SERVER_NAME_PATTERN)),
  /** Base URL the page uses for this server's echo paths; "" means the page's own origin. */
  url: z.string().check(z.maxLength(2048)),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

export const baselineStatusSchema = z.object({
  available: z.boolean(),
  /** Why the baseline is unavailable, and how to fix it. */
  reason: z.optional(z.string()),
});
export type BaselineStatus = z.infer<typeof baselineStatusSchema>;

/** GET /api/config: what a page needs to start probing. */
export const configSchema = z.object({
  protocol: z.literal(PROTOCOL_VERSION),
  /** This server's own name. */
  name: z.string().check(z.regex(SERVER_NAME_PATTERN)),
  /** servers[0] is this server (the home server); the rest are peers. */
  servers: z.array(serverInfoSchema).check(z.minLength(1), z.maxLength(8)),
  intervalMs: z.int().check(z.positive()),
  timeoutMs: z.int().check(z.positive()),
  baselines: z.record(z.string(), baselineStatusSchema),
});
export type Config = z.infer<typeof configSchema>;

// ---- WebSocket /ws messages -------------------------------------------------

/** Page → server. An echo message is sent back byte for byte. */
export const clientWsMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("echo"), id: z.int().check(z.minimum(0)) }),
  z.strictObject({
    type: z.literal("hello"),
    clientId: token,
    sessionId: token,
  }),
]);
export type ClientWsMessage = z.infer<typeof clientWsMessageSchema>;

/** A baseline measured by a server, pushed to the page so its reports carry it home. */
export const baselineSampleSchema = z.strictObject({
  method: z.enum(["ping", "wsping", "tcprtt"]),
  /** Server-side id, unique per connection, so a page never reports one twice. */
  id: z.int().check(z.minimum(0)),
  t: epochMs,
  target: z.string().check(z.regex(SERVER_NAME_PATTERN)),
  ms: z.nullable(latencyMs),
  outcome: z.enum(OUTCOMES),
  minrtt: z.optional(latencyMs),
  reason: z.optional(z.string().check(z.maxLength(REASON_CHARS_MAX))),
});
export type BaselineSample = z.infer<typeof baselineSampleSchema>;

/** Server → page (echo replies are the page's own message, not listed here). */
export const serverWsMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("echo"), id: z.int().check(z.minimum(0)) }),
  z.strictObject({
    type: z.literal("welcome"),
    name: z.string().check(z.regex(SERVER_NAME_PATTERN)),
    /** This server follows each echo with a `served` note; a page waits for notes only from servers that say so. */
    served: z.optional(z.literal(true)),
  }),
  /**
   * Sent right after an echo, never before it: the server's receive-to-send
   * time for echo `id` (ms), so the echo itself stays the page's bytes.
   */
  z.strictObject({ type: z.literal("served"), id: z.int().check(z.minimum(0)), serverMs: latencyMs }),
  z.strictObject({ type: z.literal("baseline"), samples: z.array(baselineSampleSchema).check(z.maxLength(100)) }),
]);
export type ServerWsMessage = z.infer<typeof serverWsMessageSchema>;

// ---- Queries ------------------------------------------------------------------

/**
 * GET /api/stats: from, to, client as before, plus the chart endpoints'
 * filters (method, target, visible, maxLateMs, exclude; see shared/charts.ts).
 */
export const statsQuerySchema = z
  .strictObject({
    ...sampleFilterQueryShape,
    from: z.optional(queryInt),
    to: z.optional(queryInt),
    client: z.optional(token),
  })
  .check(
    z.refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
      message: "from must not be after to",
    }),
  );
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
  /**
   * The coarsest timer resolution (ms) reported by the sessions whose samples
   * are in the range: browser latencies are multiples of it (0.1 without
   * cross-origin isolation, 0.005 with it). null when no session reported one.
   */
  timerResolutionMs: number | null;
}

/** Parse an unknown value with a schema into a Result with a readable message. */
export function parseWith<T>(schema: z.core.$ZodType<T>, input: unknown): Result<T> {
  // zod/mini loads no messages of its own; the English ones are passed per parse.
  const r = z.safeParse(schema, input, { error: ENGLISH.localeError });
  if (r.success) return ok(r.data);
  const issue = r.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return fail(`${where}${issue?.message ?? "invalid"}`);
}
