// `ss -Htin` output (iproute2), parsed into the kernel's TCP_INFO round-trip
// figures per connection. Each connection is one line of addresses followed
// by an indented line of `key:value` pairs.
import { normalizeAddress } from "../client-address.js";

export interface SsConnection {
  localAddress: string;
  localPort: number;
  peerAddress: string;
  peerPort: number;
  /** Smoothed RTT (ms): includes the peer's delayed-ACK time on sparse traffic. */
  rttMs: number | undefined;
  rttVarMs: number | undefined;
  /** Smallest RTT the kernel saw on this connection (ms). */
  minRttMs: number | undefined;
}

/** "127.0.0.1:443", "[::1]:443", "[fe80::1%eth0]:443", "[::ffff:10.0.0.1]:443" → address and port. */
export function parseEndpoint(text: string): { address: string; port: number } | undefined {
  const m = /^\[?([^\]\s]*?)(?:%[^\]\s]+)?\]?:(\d{1,5})$/.exec(text);
  if (!m || m[1] === "") return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  return { address: normalizeAddress(m[1]!), port };
}

/** Key by which a connection is matched to a client: normalized address and port. */
export function endpointKey(address: string, port: number): string {
  return `${normalizeAddress(address)}|${port}`;
}

function msField(info: string, re: RegExp): number | undefined {
  const m = re.exec(info);
  if (!m) return undefined;
  const v = Number(m[1]);
  return Number.isFinite(v) && v >= 0 ? v : undefined;
}

export function parseSs(text: string): SsConnection[] {
  return Array.from(ssConnections(text));
}

/**
 * parseSs one connection at a time: at 2,000 tabs ss prints ~8,000 lines a
 * second, and the server reads them in slices between other work (tcp-info.ts).
 */
export function* ssConnections(text: string): Generator<SsConnection> {
  let current: SsConnection | undefined;
  for (let start = 0; start < text.length; ) {
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    if (/^\s/.test(line)) {
      // The info line of the connection above it.
      if (current === undefined) continue;
      // " rtt:" and " minrtt:" only: bbr's "mrtt:" and "rcv_rtt:" are other figures.
      current.rttMs = msField(line, /(?:^|\s)rtt:(\d+(?:\.\d+)?)\//);
      current.rttVarMs = msField(line, /(?:^|\s)rtt:\d+(?:\.\d+)?\/(\d+(?:\.\d+)?)/);
      current.minRttMs = msField(line, /(?:^|\s)minrtt:(\d+(?:\.\d+)?)/);
      // One info line per connection; anything indented after it belongs to nobody.
      yield current;
      current = undefined;
      continue;
    }
    if (current !== undefined) yield current; // a connection without an info line
    // Header-less (-H) line: [State] Recv-Q Send-Q Local:Port Peer:Port [Process]
    const fields = line.trim().split(/\s+/);
    const endpoints = fields.map(parseEndpoint);
    const i = endpoints.findIndex((e) => e !== undefined);
    const local = endpoints[i];
    const peer = endpoints[i + 1];
    if (i < 0 || local === undefined || peer === undefined) {
      current = undefined;
      continue;
    }
    current = {
      localAddress: local.address,
      localPort: local.port,
      peerAddress: peer.address,
      peerPort: peer.port,
      rttMs: undefined,
      rttVarMs: undefined,
      minRttMs: undefined,
    };
  }
  if (current !== undefined) yield current;
}
