// The address a client connected from: the TCP peer as the kernel reports it.
// Only behind a reverse proxy the operator runs (--trust-proxy) is the last
// X-Forwarded-For hop used instead, because only that hop was written by the proxy.
import type { IncomingMessage } from "node:http";
import net from "node:net";

export function normalizeAddress(address: string): string {
  // An IPv4 client on a dual-stack socket appears as ::ffff:1.2.3.4; ping wants 1.2.3.4.
  return address.startsWith("::ffff:") && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = req.headers["x-forwarded-for"];
    const last = (Array.isArray(xff) ? xff.join(",") : (xff ?? "")).split(",").pop()?.trim();
    if (last && net.isIP(last)) return normalizeAddress(last);
  }
  return normalizeAddress(req.socket.remoteAddress ?? "");
}
