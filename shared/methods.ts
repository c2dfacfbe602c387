// The vocabulary of a sample: what was measured and how it ended.

/** Probes the page sends itself. */
export const PROBE_METHODS = ["xhr", "jsonp", "ws", "best2"] as const;
/** Baselines a server measures towards a connected page (see docs/architecture.md). */
export const BASELINE_METHODS = ["ping", "wsping", "tcprtt"] as const;
/**
 * A server's own probes of its peers, once a second with no browser in the
 * path (server/health/peer-prober.ts): stored as the samples of a client of
 * their own, the probing server.
 */
export const PEER_METHODS = ["peerhttp", "peerws"] as const;
export const METHODS = [...PROBE_METHODS, ...BASELINE_METHODS, ...PEER_METHODS] as const;

export type ProbeMethod = (typeof PROBE_METHODS)[number];
export type BaselineMethod = (typeof BASELINE_METHODS)[number];
export type PeerMethod = (typeof PEER_METHODS)[number];
export type Method = (typeof METHODS)[number];

/**
 * `skipped` is an honest gap: the tick was due but no probe could be sent
 * (page frozen, machine asleep, outstanding-probe cap). It is neither a
 * latency nor a failure.
 */
export const OUTCOMES = ["ok", "timeout", "error", "skipped"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Legs of a best-of-two race. */
export const BEST2_LEGS = ["ws", "jsonp"] as const;
export type Best2Leg = (typeof BEST2_LEGS)[number];

/** Human labels in the order the seed article's tables use. */
export const METHOD_LABELS: Record<Method, string> = {
  xhr: "XMLHttpRequest",
  jsonp: "JSONP",
  ws: "WebSocket",
  best2: "Best of two (WS A + JSONP B)",
  ping: "Ping (ICMP)",
  wsping: "WebSocket ping frame",
  tcprtt: "Kernel TCP RTT",
  peerhttp: "HTTP echo from a peer server",
  peerws: "WebSocket echo from a peer server",
};

/**
 * Tables and charts list series in this order: the page's probes, the
 * baselines with the kernel's min RTT (the derived series `tcpminrtt`)
 * beside its smoothed RTT, then the servers' own probes of their peers.
 */
const DISPLAY_ORDER: readonly string[] = [...PROBE_METHODS, ...BASELINE_METHODS, "tcpminrtt", ...PEER_METHODS];

export function methodOrder(method: string): number {
  const i = DISPLAY_ORDER.indexOf(method);
  return i < 0 ? DISPLAY_ORDER.length : i;
}

/**
 * Browser engines a page can tell it runs in (client/src/probe/engine.ts):
 * Blink/V8, Gecko/SpiderMonkey, WebKit/JavaScriptCore. Their clocks differ
 * (docs/engines.md), so each session says which one timed its samples.
 */
export const BROWSER_ENGINES = ["chromium", "gecko", "webkit"] as const;
export type BrowserEngine = (typeof BROWSER_ENGINES)[number];
