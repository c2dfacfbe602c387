import { PING_PROCESSES_MAX_DEFAULT } from "../baseline/pinger.js";

// Every limit a public server puts on one address, with its unit and default.
// Defaults are sized for honest use: several tabs from one address (a shared
// office NAT) probing at the configured interval, with room for bursts.

/** Tabs from one address the default budgets are sized for. */
export const HONEST_TABS_PER_ADDRESS = 8;
/** HTTP echo requests one tab sends a server per tick: XHR, JSONP, best-of-two's JSONP, and one spare. */
const ECHO_REQUESTS_PER_TICK = 4;
/** A budget may be spent this many seconds ahead at once (a reconnect, a tab restored). */
export const BURST_SECONDS = 5;

/** Echo requests (GET /echo, /jsonp) per second per address, at a 1 s interval; scaled with the interval. */
export function echoPerSecondDefault(intervalMs: number): number {
  return Math.ceil((HONEST_TABS_PER_ADDRESS * ECHO_REQUESTS_PER_TICK * 1000) / intervalMs);
}
export const ECHO_PER_SECOND_MIN = 1;
export const ECHO_PER_SECOND_MAX = 1_000_000;
/**
 * POST /api/samples per second per address at a 1 s interval, scaled with the
 * interval: a page posts every 5 s (or at each full batch), and a page
 * draining its outbox after an outage posts once per housekeeping slot;
 * beyond this it waits for Retry-After and keeps its samples.
 */
export const INGEST_PER_SECOND_DEFAULT = 10;

export function ingestPerSecondDefault(intervalMs: number): number {
  return Math.ceil((INGEST_PER_SECOND_DEFAULT * 1000) / Math.min(1000, intervalMs));
}
export const INGEST_PER_SECOND_MIN = 1;
export const INGEST_PER_SECOND_MAX = 100_000;
/** Open WebSockets per address: one per tab per server, several tabs. */
export const WS_PER_ADDRESS_DEFAULT = 32;
export const WS_PER_ADDRESS_MIN = 1;
export const WS_PER_ADDRESS_MAX = 100_000;
/** Open TCP connections per address (a browser opens ~6 per origin per tab). */
export const CONNECTIONS_PER_ADDRESS_DEFAULT = 128;
export const CONNECTIONS_PER_ADDRESS_MIN = 1;
export const CONNECTIONS_PER_ADDRESS_MAX = 100_000;
/**
 * Open TCP connections in all (Node's server.maxConnections). Sized for the
 * 2,000 tabs one process holds: each a WebSocket and one or two keep-alive
 * HTTP connections (a page's probes are spread over the second), with room
 * for the histogram pages. Each is a file descriptor: `ulimit -n` must be above it.
 */
export const CONNECTIONS_MAX_DEFAULT = 16_384;
export const CONNECTIONS_MAX_MIN = 1;
export const CONNECTIONS_MAX_MAX = 1_000_000;
/** A request's headers must arrive within this (ms): a browser sends them in one packet. */
export const HEADERS_TIMEOUT_MS_DEFAULT = 10_000;
export const HEADERS_TIMEOUT_MS_MIN = 200;
export const HEADERS_TIMEOUT_MS_MAX = 300_000;
/** A whole request, body included (at most 1 MiB), must arrive within this (ms). */
export const REQUEST_TIMEOUT_MS_DEFAULT = 30_000;
export const REQUEST_TIMEOUT_MS_MIN = 200;
export const REQUEST_TIMEOUT_MS_MAX = 600_000;
/** A WebSocket that answers no ping frame for this long (ms) is terminated. */
export const WS_HEARTBEAT_MS_DEFAULT = 30_000;
export const WS_HEARTBEAT_MS_MIN = 100;
export const WS_HEARTBEAT_MS_MAX = 600_000;
/** A WebSocket whose unsent output passes this (bytes) has stopped reading and is closed. */
export const WS_SEND_BUFFER_BYTES_MAX = 1024 * 1024;
/** Ping processes at once (loopback not counted); beyond it addresses share the slots in turn. */
export const PING_PROCESSES_MIN = 1;
export const PING_PROCESSES_MAX = 10_000;
/** Addresses a limiter remembers at most; the least recently seen are forgotten first. */
export const LIMITER_ADDRESSES_MAX = 10_000;

export interface LimitOptions {
  /** false with --no-rate-limit: no per-address request budgets (lab runs, synthetic loads). Caps and timeouts stay. */
  rateLimit: boolean;
  /** Echo requests per second per address. */
  echoPerSecond: number;
  /** Ingest requests per second per address. */
  ingestPerSecond: number;
  /** Open WebSockets per address. */
  wsPerAddress: number;
  /** Open TCP connections per address (not applied to trusted proxies). */
  connectionsPerAddress: number;
  /** Open TCP connections in all. */
  connectionsMax: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  wsHeartbeatMs: number;
  wsSendBufferBytesMax: number;
  /** Concurrent ping processes (see server/baseline/pinger.ts). */
  pingProcessesMax: number;
}

export function defaultLimits(intervalMs: number): LimitOptions {
  return {
    rateLimit: true,
    echoPerSecond: echoPerSecondDefault(intervalMs),
    ingestPerSecond: ingestPerSecondDefault(intervalMs),
    wsPerAddress: WS_PER_ADDRESS_DEFAULT,
    connectionsPerAddress: CONNECTIONS_PER_ADDRESS_DEFAULT,
    connectionsMax: CONNECTIONS_MAX_DEFAULT,
    headersTimeoutMs: HEADERS_TIMEOUT_MS_DEFAULT,
    requestTimeoutMs: REQUEST_TIMEOUT_MS_DEFAULT,
    wsHeartbeatMs: WS_HEARTBEAT_MS_DEFAULT,
    wsSendBufferBytesMax: WS_SEND_BUFFER_BYTES_MAX,
    pingProcessesMax: PING_PROCESSES_MAX_DEFAULT,
  };
}

// The stress test's load paths (server/stress/, docs/stress.md).
/**
 * Bytes one address may move through the load paths per (rolling) hour, both
 * directions together: one whole test at 1 Gbit/s (15 s of download and 15 s
 * bidirectional each way, ~7.5 GB), or ten at 100 Mbit/s.
 */
export const STRESS_BYTES_PER_HOUR_DEFAULT = 8 * 1024 ** 3;
/** At least the largest single load request (server/stress/load-paths.ts), or nothing could ever pass. */
export const STRESS_BYTES_PER_HOUR_MIN = 64 * 1024 ** 2;
export const STRESS_BYTES_PER_HOUR_MAX = 2 ** 50;
/**
 * Load streams one address may hold at once: a test's six downloads and six
 * uploads (a browser's connections per origin) and room for a second tab.
 */
export const STRESS_STREAMS_PER_ADDRESS_DEFAULT = 16;
export const STRESS_STREAMS_PER_ADDRESS_MIN = 1;
export const STRESS_STREAMS_PER_ADDRESS_MAX = 10_000;
/** Load streams the whole server holds at once: about five tests at their peak. */
export const STRESS_STREAMS_MAX_DEFAULT = 64;
export const STRESS_STREAMS_MAX_MIN = 1;
export const STRESS_STREAMS_MAX_MAX = 100_000;
/**
 * Mbit/s one address's load may move per direction: a gigabit plan's whole
 * link (its TCP goodput is ~940), and no more of the server's own uplink
 * than that. A browser moving several Gbit/s is the bottleneck itself: on
 * loopback at 2.7 Gbit/s Chromium's network process, which also carries the
 * WebSocket probe, delayed it by ~10 ms while ping stayed flat. 0: unpaced.
 */
export const STRESS_MBPS_PER_ADDRESS_DEFAULT = 1000;
export const STRESS_MBPS_PER_ADDRESS_MIN = 0;
export const STRESS_MBPS_PER_ADDRESS_MAX = 1_000_000;
