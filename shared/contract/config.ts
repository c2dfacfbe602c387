// GET /api/config, server → page: what a page needs to start probing.
import { SERVER_NAME_PATTERN } from "../names.js";
import { z } from "../zod.js";
import { PROTOCOL_VERSION } from "./version.js";

const port = z.int().check(z.minimum(1), z.maximum(65535));

/**
 * Where a server's stress-test load paths listen (docs/stress.md): ports on
 * the host of its base URL, with its scheme. Two origins of their own, so the
 * load's connections never take the ones the probes use (a browser opens at
 * most six per origin), and so a direction's streams never wait for the other's.
 */
export const stressPortsSchema = z.object({ downPort: port, upPort: port });
export type StressPorts = z.infer<typeof stressPortsSchema>;

export const serverInfoSchema = z.object({
  name: z.string().check(z.regex(SERVER_NAME_PATTERN)),
  /** Base URL the page uses for this server's echo paths; "" means the page's own origin. */
  url: z.string().check(z.maxLength(2048)),
  /**
   * The server's load paths; absent where it offers no stress test (--no-stress)
   * or, for a peer, where the page must ask the peer's own /api/config.
   */
  stress: z.optional(stressPortsSchema),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

/**
 * Why a server-side baseline does not run, or runs only in part: data a page
 * can act on, beside `reason`, its advice for a person (docs/api.md).
 */
export const BASELINE_STATUS_CODES = [
  /** --no-ping. */
  "turned-off",
  /** The program (ping, ss) is missing or not executable. */
  "not-installed",
  /** ping may not send ICMP (no cap_net_raw, group outside ping_group_range). */
  "not-permitted",
  /** This ping lacks iputils' options, or this is not Linux (tcprtt). */
  "unsupported",
  /** --trust-proxy: the TCP connection ends at the proxy, not at the page. */
  "behind-proxy",
  /** Available, but ping fails towards some client addresses. */
  "some-addresses-fail",
  /** The check itself failed (ss -V answered an error). */
  "check-failed",
] as const;
export type BaselineStatusCode = (typeof BASELINE_STATUS_CODES)[number];

export const baselineStatusSchema = z.object({
  available: z.boolean(),
  /** Why the baseline is unavailable or partial; absent when it simply runs. */
  code: z.optional(z.enum(BASELINE_STATUS_CODES)),
  /** The same for a person: what is wrong and how to fix it (never a client address). */
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
