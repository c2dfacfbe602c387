// WebSocket /ws, both directions: the page's echo probes and hello, and the
// server's welcome, served notes and baselines.
import { BASELINE_METHODS, OUTCOMES, PROBE_METHODS } from "../methods.js";
import { SERVER_NAME_PATTERN, TARGET_PATTERN } from "../names.js";
import { z } from "../zod.js";
import { epochMs, latencyMs, token } from "./fields.js";
import { sampleReasonSchema } from "./reasons.js";

/** Samples one health note carries at most (a note must stay well under the socket's 4 KiB message limit). */
export const HEALTH_NOTE_SAMPLES_MAX = 16;

/**
 * A settled probe as a health note carries it: what the home server judges
 * health from before the report with the full sample arrives (it arrives
 * too, and the two are the same sample by (session, seq)).
 */
export const healthNoteSampleSchema = z.strictObject({
  seq: z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER)),
  t: epochMs,
  method: z.enum(PROBE_METHODS),
  target: z.string().check(z.regex(TARGET_PATTERN)),
  outcome: z.enum(OUTCOMES),
  ms: z.nullable(latencyMs),
  /** How late the tick fired (ms). */
  lateMs: z.optional(latencyMs),
  /** The tab was hidden at send or reply, or had been hidden: its timers may be throttled. */
  hidden: z.optional(z.boolean()),
  /** The page was frozen (or the machine asleep) between send and reply. */
  froze: z.optional(z.boolean()),
  /** The server's own time on the probe (ms). */
  serverMs: z.optional(latencyMs),
  reason: z.optional(sampleReasonSchema),
});
export type HealthNoteSample = z.infer<typeof healthNoteSampleSchema>;

/** Page → server. An echo message is sent back byte for byte. */
export const clientWsMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("echo"), id: z.int().check(z.minimum(0)) }),
  z.strictObject({
    type: z.literal("hello"),
    clientId: token,
    sessionId: token,
  }),
  /**
   * Sent to the home server in the page's own slot while a server fails (and
   * for a while after), so a failure reaches it within a tick rather than with
   * the next report (report/health-notes.ts). Only after hello.
   */
  z.strictObject({
    type: z.literal("health"),
    samples: z.array(healthNoteSampleSchema).check(z.minLength(1), z.maxLength(HEALTH_NOTE_SAMPLES_MAX)),
  }),
]);
export type ClientWsMessage = z.infer<typeof clientWsMessageSchema>;

/** A baseline measured by a server, pushed to the page so its reports carry it home. */
export const baselineSampleSchema = z.strictObject({
  method: z.enum(BASELINE_METHODS),
  /** Server-side id, unique per connection, so a page never reports one twice. */
  id: z.int().check(z.minimum(0)),
  t: epochMs,
  target: z.string().check(z.regex(SERVER_NAME_PATTERN)),
  ms: z.nullable(latencyMs),
  outcome: z.enum(OUTCOMES),
  minrtt: z.optional(latencyMs),
  reason: z.optional(sampleReasonSchema),
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
