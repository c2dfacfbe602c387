// This server's own probes of its peers, once a second each: an HTTP echo
// and a WebSocket echo, as a page sends them but with no browser in the path.
// A baseline for the health monitor (a peer failing from every page and from
// here is down; failing from here only, the path between the servers is) and
// a series of its own in the store (peer-samples.ts).
import type { ServerInfo } from "../../shared/contract/index.js";
import type { PeerMethod } from "../../shared/methods.js";
import { probeHttpEcho, type PeerProbeResult } from "./peer-http-probe.js";
import { PeerWsChannel } from "./peer-ws-channel.js";

/** Each peer is probed this often, per method (ms). */
export const PEER_PROBE_INTERVAL_MS = 1000;

export interface PeerProberOptions {
  /** The peers now (names are learned after start). */
  peers: () => readonly ServerInfo[];
  /** A probe unanswered this long is a timeout (ms): the pages' --timeout-ms. */
  timeoutMs: number;
  nowMs: () => number;
  log: (line: string) => void;
  /** One probe settled; t is when it was sent (epoch ms). */
  onResult(method: PeerMethod, target: string, t: number, r: PeerProbeResult): void;
  intervalMs?: number;
}

export interface PeerProber {
  stop(): void;
}

export function createPeerProber(o: PeerProberOptions): PeerProber {
  const intervalMs = o.intervalMs ?? PEER_PROBE_INTERVAL_MS;
  // A silent peer holds each probe for the whole timeout: this many may be outstanding, then ticks wait.
  const outstandingMax = Math.ceil(o.timeoutMs / intervalMs) + 1;
  const channels = new Map<string, PeerWsChannel>();
  const outstanding = new Map<string, number>();
  const untrustedLogged = new Set<string>();
  let half = 0;

  const run = (key: string, method: PeerMethod, peer: ServerInfo, probe: () => Promise<PeerProbeResult>) => {
    const k = `${method} ${key}`;
    const n = outstanding.get(k) ?? 0;
    if (n >= outstandingMax) return;
    outstanding.set(k, n + 1);
    const t = o.nowMs();
    void probe().then((r) => {
      outstanding.set(k, (outstanding.get(k) ?? 1) - 1);
      if (r.untrusted === true) {
        // Nothing was measured: a browser told to trust the certificate may reach it fine.
        if (!untrustedLogged.has(peer.url))
          o.log(
            `tailprobe: peer ${peer.url}: its TLS certificate is not trusted here; this server does not probe it itself`,
          );
        untrustedLogged.add(peer.url);
        return;
      }
      o.onResult(method, peer.name, t, r);
    });
  };

  // HTTP and WebSocket half an interval apart, so the two probes of one peer never share a moment.
  const timer = setInterval(() => {
    const http = half++ % 2 === 0;
    for (const peer of o.peers()) {
      if (peer.url === "") continue;
      if (http) {
        run(peer.url, "peerhttp", peer, () => probeHttpEcho(peer.url, o.timeoutMs));
        continue;
      }
      let ch = channels.get(peer.url);
      if (ch === undefined) {
        ch = new PeerWsChannel(`${peer.url.replace(/^http/, "ws")}/ws`);
        channels.set(peer.url, ch);
      }
      ch.maintain();
      if (ch.starting) continue;
      const channel = ch;
      run(peer.url, "peerws", peer, () => channel.echo(o.timeoutMs));
    }
  }, intervalMs / 2);
  timer.unref();

  return {
    stop() {
      clearInterval(timer);
      for (const ch of channels.values()) ch.close();
      channels.clear();
    },
  };
}
