// POST /api/samples, page → server: a batch of samples, and what the server
// answers (the counts after its commit, or the samples it refuses by name).
import { BEST2_LEGS, BROWSER_ENGINES, METHODS, OUTCOMES } from "../methods.js";

export type { BrowserEngine } from "../methods.js";
import { TARGET_PATTERN } from "../names.js";
import { STRESS_PHASES } from "../stress/phases.js";
import { z } from "../zod.js";
import { count, epochMs, HIDDEN_MS_MAX, isWellFormed, latencyMs, token } from "./fields.js";
import { sampleReasonSchema } from "./reasons.js";
import { BATCH_SAMPLES_MAX } from "./refusal.js";
import { samplePairProblem } from "./sample-pairs.js";

// The batch limit and the refusal live in refusal.ts, which the probe page imports
// alone: this module's schemas are kept whole by the bundler wherever it is imported.
export {
  BATCH_SAMPLES_MAX,
  REJECTED_ERROR_CHARS_MAX,
  type RejectedSample,
  rejectedSampleSchema,
  type SampleRefusal,
  sampleRefusalSchema,
} from "./refusal.js";

export const LABEL_CHARS_MAX = 64;
/** Coarser than this (ms) is no high-resolution timer at all. */
export const TIMER_RESOLUTION_MS_MAX = 1000;

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
    /**
     * Why a sample failed or was skipped (SAMPLE_REASONS, docs/api.md). For
     * best2, the failed leg's: the loser's on a won race, else the WebSocket
     * leg's (the JSONP leg's when the WebSocket leg has none).
     */
    reason: z.optional(sampleReasonSchema),
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
    hiddenMs: z.optional(z.number().check(z.minimum(0), z.maximum(HIDDEN_MS_MAX))),
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
    /**
     * Taken during a stress test (docs/stress.md): the run's id (the token its
     * POST /api/stress report carries as `run`) and the phase it was in. A probe
     * is in the phase it was sent in; a baseline in the phase it reached the page in.
     */
    stressRun: z.optional(token),
    load: z.optional(z.enum(STRESS_PHASES)),
  })
  .check(
    z.superRefine((s, ctx) => {
      const problem = samplePairProblem(s);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    }),
  );
export type Sample = z.infer<typeof sampleSchema>;

/** What a batch says besides its samples: one shape for the strict batch and the envelope the server reads first. */
const batchEnvelopeShape = {
  clientId: token,
  sessionId: token,
  /** Shown on the pages and stored as text: well-formed Unicode (no lone surrogate, which neither store keeps as sent). */
  label: z.optional(
    z
      .string()
      .check(z.maxLength(LABEL_CHARS_MAX), z.refine(isWellFormed, "not well-formed Unicode (a lone surrogate)")),
  ),
  /**
   * The smallest step of performance.now() the session's page measured (ms):
   * 0.005 when cross-origin isolated, 0.1 otherwise in Chromium. Every
   * latency of the session is a multiple of it. Sent with each batch of the
   * session; the server keeps the first it receives.
   */
  timerResolutionMs: z.optional(z.number().check(z.minimum(0), z.maximum(TIMER_RESOLUTION_MS_MAX))),
  /**
   * The engine the session's page runs in, as the page detected it from what
   * only that engine has (client/src/probe/engine.ts), not from its
   * User-Agent. Sent and kept like timerResolutionMs; absent when the page
   * could not tell.
   */
  engine: z.optional(z.enum(BROWSER_ENGINES)),
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

/** 200: the batch is committed. */
export const ingestResultSchema = z.object({
  /** Samples stored by this request. */
  accepted: count,
  /** Samples already stored by an earlier delivery of the same (sessionId, seq). */
  duplicates: count,
});
export type IngestResult = z.infer<typeof ingestResultSchema>;
