// WebSocket /ws, both directions: the page's echo probes and hello, and the
// server's welcome, served notes and baselines.
import { BASELINE_METHODS, OUTCOMES } from "../methods.js";
import { SERVER_NAME_PATTERN } from "../names.js";
import { z } from "../zod.js";
import { epochMs, latencyMs, token } from "./fields.js";
import { sampleReasonSchema } from "./reasons.js";

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
