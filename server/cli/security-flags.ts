// The flags of a public server's limits and its admin token, parsed into the
// options object like every other flag (see options.ts, which includes them).
import { fail, ok, type Result } from "../../shared/result.js";
import * as L from "../limits/limits-config.js";

/** Environment variable that may carry the admin token instead of the command line (which `ps` shows). */
export const ADMIN_TOKEN_ENV = "TAILPROBE_ADMIN_TOKEN";
/** A shorter token is guessable over the network. */
export const ADMIN_TOKEN_CHARS_MIN = 16;
export const ADMIN_TOKEN_CHARS_MAX = 256;

export const SECURITY_FLAGS = {
  "no-rate-limit": {
    type: "boolean",
    help: "no per-address request budgets (lab runs, loading synthetic data); connection caps and timeouts stay",
  },
  "echo-rate": {
    type: "string",
    help: "echo requests per second per address (default: 32 at a 1 s interval, scaled with --interval-ms)",
  },
  "ingest-rate": {
    type: "string",
    help: `sample batches per second per address (default ${L.INGEST_PER_SECOND_DEFAULT} at a 1 s interval, scaled with --interval-ms)`,
  },
  "ws-per-address": { type: "string", help: `open WebSockets per address (default ${L.WS_PER_ADDRESS_DEFAULT})` },
  "connections-per-address": {
    type: "string",
    help: `open TCP connections per address (default ${L.CONNECTIONS_PER_ADDRESS_DEFAULT})`,
  },
  "max-connections": { type: "string", help: `open TCP connections in all (default ${L.CONNECTIONS_MAX_DEFAULT})` },
  "headers-timeout-ms": {
    type: "string",
    help: `a request's headers must arrive within MS (default ${L.HEADERS_TIMEOUT_MS_DEFAULT})`,
  },
  "request-timeout-ms": {
    type: "string",
    help: `a whole request must arrive within MS (default ${L.REQUEST_TIMEOUT_MS_DEFAULT})`,
  },
  "ws-heartbeat-ms": {
    type: "string",
    help: `terminate a WebSocket silent to pings for MS (default ${L.WS_HEARTBEAT_MS_DEFAULT})`,
  },
  "ping-processes": {
    type: "string",
    help: "ping processes at once, loopback not counted; more addresses take turns (default 64)",
  },
  "admin-token": {
    type: "string",
    help: `enable the admin API (delete a client's data, prune now) for this secret; or set ${ADMIN_TOKEN_ENV}`,
  },
} as const;

export const SECURITY_FLAG_ARGS = {
  "echo-rate": "N",
  "ingest-rate": "N",
  "ws-per-address": "N",
  "connections-per-address": "N",
  "max-connections": "N",
  "headers-timeout-ms": "MS",
  "request-timeout-ms": "MS",
  "ws-heartbeat-ms": "MS",
  "ping-processes": "N",
  "admin-token": "TOKEN",
} as const;

export interface SecurityOptions {
  limits: L.LimitOptions;
  /** The admin API's secret; undefined: no admin API (its paths answer 404). */
  adminToken: string | undefined;
}

type IntFlag = (flag: string, raw: string | undefined, dflt: number, min: number, max: number) => Result<number>;

export function parseSecurityFlags(
  values: Record<string, unknown>,
  intervalMs: number,
  env: Readonly<Record<string, string | undefined>>,
  intFlag: IntFlag,
): Result<SecurityOptions> {
  const d = L.defaultLimits(intervalMs);
  const int = (flag: keyof typeof SECURITY_FLAG_ARGS, dflt: number, min: number, max: number) =>
    intFlag(flag, values[flag] as string | undefined, dflt, min, max);
  const echo = int("echo-rate", d.echoPerSecond, L.ECHO_PER_SECOND_MIN, L.ECHO_PER_SECOND_MAX);
  if (!echo.ok) return echo;
  const ingest = int("ingest-rate", d.ingestPerSecond, L.INGEST_PER_SECOND_MIN, L.INGEST_PER_SECOND_MAX);
  if (!ingest.ok) return ingest;
  const ws = int("ws-per-address", d.wsPerAddress, L.WS_PER_ADDRESS_MIN, L.WS_PER_ADDRESS_MAX);
  if (!ws.ok) return ws;
  const perAddress = int(
    "connections-per-address",
    d.connectionsPerAddress,
    L.CONNECTIONS_PER_ADDRESS_MIN,
    L.CONNECTIONS_PER_ADDRESS_MAX,
  );
  if (!perAddress.ok) return perAddress;
  const max = int("max-connections", d.connectionsMax, L.CONNECTIONS_MAX_MIN, L.CONNECTIONS_MAX_MAX);
  if (!max.ok) return max;
  const headers = int("headers-timeout-ms", d.headersTimeoutMs, L.HEADERS_TIMEOUT_MS_MIN, L.HEADERS_TIMEOUT_MS_MAX);
  if (!headers.ok) return headers;
  const request = int(
    "request-timeout-ms",
    Math.max(d.requestTimeoutMs, headers.value),
    L.REQUEST_TIMEOUT_MS_MIN,
    L.REQUEST_TIMEOUT_MS_MAX,
  );
  if (!request.ok) return request;
  if (request.value < headers.value) return fail("--request-timeout-ms must not be shorter than --headers-timeout-ms");
  const heartbeat = int("ws-heartbeat-ms", d.wsHeartbeatMs, L.WS_HEARTBEAT_MS_MIN, L.WS_HEARTBEAT_MS_MAX);
  if (!heartbeat.ok) return heartbeat;
  const pings = int("ping-processes", d.pingProcessesMax, L.PING_PROCESSES_MIN, L.PING_PROCESSES_MAX);
  if (!pings.ok) return pings;

  const fromFlag = values["admin-token"] as string | undefined;
  const adminToken = fromFlag ?? (env[ADMIN_TOKEN_ENV] === "" ? undefined : env[ADMIN_TOKEN_ENV]);
  const source = fromFlag !== undefined ? "--admin-token" : ADMIN_TOKEN_ENV;
  if (
    adminToken !== undefined &&
    (adminToken.length < ADMIN_TOKEN_CHARS_MIN || adminToken.length > ADMIN_TOKEN_CHARS_MAX)
  )
    return fail(
      `${source} must be ${ADMIN_TOKEN_CHARS_MIN}-${ADMIN_TOKEN_CHARS_MAX} characters (e.g. openssl rand -hex 24)`,
    );
  if (adminToken !== undefined && !/^[\x21-\x7e]+$/.test(adminToken))
    return fail(`${source} must be printable ASCII without spaces (it travels in an Authorization header)`);

  return ok({
    limits: {
      rateLimit: values["no-rate-limit"] !== true,
      echoPerSecond: echo.value,
      ingestPerSecond: ingest.value,
      wsPerAddress: ws.value,
      connectionsPerAddress: perAddress.value,
      connectionsMax: max.value,
      headersTimeoutMs: headers.value,
      requestTimeoutMs: request.value,
      wsHeartbeatMs: heartbeat.value,
      wsSendBufferBytesMax: d.wsSendBufferBytesMax,
      pingProcessesMax: pings.value,
    },
    adminToken,
  });
}
