// GET /api/config, server → page: what a page needs to start probing.
import { SERVER_NAME_PATTERN } from "../names.js";
import { z } from "../zod.js";
import { PROTOCOL_VERSION } from "./version.js";

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
