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
  const out: SsConnection[] = [];
  let current: SsConnection | undefined;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (/^\s/.test(line)) {
      // The info line of the connection above it.
      if (current === undefined) continue;
      // " rtt:" and " minrtt:" only: bbr's "mrtt:" and "rcv_rtt:" are other figures.
      current.rttMs = msField(line, /(?:^|\s)rtt:(\d+(?:\.\d+)?)\//);
      current.rttVarMs = msField(line, /(?:^|\s)rtt:\d+(?:\.\d+)?\/(\d+(?:\.\d+)?)/);
      current.minRttMs = msField(line, /(?:^|\s)minrtt:(\d+(?:\.\d+)?)/);
      // One info line per connection; anything indented after it belongs to nobody.
      current = undefined;
      continue;
    }
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
    out.push(current);
  }
  return out;
}
