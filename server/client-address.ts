// The address a client connected from: the TCP peer as the kernel reports it.
// Only behind a reverse proxy the operator runs (--trust-proxy) is the last
// X-Forwarded-For hop used instead, because only that hop was written by the
// proxy; and only on connections that come from the proxy itself (loopback,
// or an address named with --proxy-address), so a client that reaches the
// server directly cannot choose what gets pinged.
import type { IncomingMessage } from "node:http";
import net from "node:net";

export function normalizeAddress(address: string): string {
  // An IPv4 client on a dual-stack socket appears as ::ffff:1.2.3.4; ping wants 1.2.3.4.
  return address.startsWith("::ffff:") && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

export function isLoopback(address: string): boolean {
  return address === "::1" || (net.isIPv4(address) && address.startsWith("127."));
}

/** Which peers may speak for a client through X-Forwarded-For; null: none (no --trust-proxy). */
export type TrustedProxies = ((peer: string) => boolean) | null;

/** Loopback peers always (a proxy on this host), plus the addresses named with --proxy-address. */
export function trustedProxies(trustProxy: boolean, proxyAddresses: readonly string[]): TrustedProxies {
  if (!trustProxy) return null;
  const named = new Set(proxyAddresses.map(normalizeAddress));
  return (peer) => isLoopback(peer) || named.has(peer);
}

export function clientAddress(req: IncomingMessage, trusted: TrustedProxies): string {
  const peer = normalizeAddress(req.socket.remoteAddress ?? "");
  if (trusted?.(peer)) {
    const xff = req.headers["x-forwarded-for"];
    const last = (Array.isArray(xff) ? xff.join(",") : (xff ?? "")).split(",").pop()?.trim();
    if (last && net.isIP(last)) return normalizeAddress(last);
  }
  return peer;
}
