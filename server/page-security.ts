// Content-Security-Policy of the pages: scripts, connections and workers only
// from the home origin and the configured peers (JSONP scripts, XHR and
// WebSockets), nothing inline, no eval (the contracts run zod jitless), no
// plugins, no framing. Labels and user agents are rendered as text anyway;
// this is the second wall.
import type { RequestHandler } from "express";
import type { PeerSpec } from "./cli/options.js";

/** A Host header fit to appear in a header of our own: a name or address and a port, nothing else. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The host without its port: "[::1]:8080" → "[::1]". */
const hostName = (host: string) => host.replace(/:\d{1,5}$/, "");

export function contentSecurityPolicy(peers: readonly PeerSpec[], host: string | undefined, tls: boolean): string {
  const peerOrigins = peers.map((p) => new URL(p.url).origin);
  const peerSockets = peerOrigins.map((o) => o.replace(/^http/, "ws"));
  const plainHost = host !== undefined && PLAIN_HOST.test(host) ? host : undefined;
  // 'self' covers this origin's ws:/wss: in CSP Level 3 browsers; older ones need it spelled out.
  const ownSocket = plainHost !== undefined ? [`${tls ? "wss" : "ws"}://${plainHost}`] : [];
  // The stress test's load paths listen on other ports of the same hosts (docs/stress.md); a
  // peer's may change when it restarts, so any port of a host the page already talks to.
  const loadOrigins = [
    ...(plainHost !== undefined ? [`${tls ? "https" : "http"}://${hostName(plainHost)}:*`] : []),
    ...peers.map((p) => {
      const u = new URL(p.url);
      return `${u.protocol}//${u.hostname}:*`;
    }),
  ];
  return [
    "default-src 'none'",
    `script-src 'self' ${peerOrigins.join(" ")}`.trim(),
    `connect-src 'self' ${[...ownSocket, ...peerOrigins, ...peerSockets, ...loadOrigins].join(" ")}`.trim(),
    "worker-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Sets the policy (and its companions) on everything the page routes answer. */
export function pageSecurityHeaders(peers: readonly PeerSpec[], tls: boolean): RequestHandler {
  return (req, res, next) => {
    res.set({
      "Content-Security-Policy": contentSecurityPolicy(peers, req.headers.host, tls),
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    });
    next();
  };
}
