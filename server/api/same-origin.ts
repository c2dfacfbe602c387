// Anything that writes data accepts only the server's own pages: a browser
// always sends Origin on a cross-origin POST, so a foreign one is refused.
// "Own" is the whole origin, scheme included: an http:// page of the same
// host and port (a network attacker can inject one) is another origin than
// the https:// pages this server serves, and an Origin a browser would never
// send (userinfo, a path) is refused outright.
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { RequestHandler } from "express";
import { normalizeAddress, type TrustedProxies } from "../client-address.js";
import { sendError } from "./http-error.js";

/**
 * The scheme the page used to reach this server: the connection's, or behind
 * a trusted proxy the last X-Forwarded-Proto hop (the proxy's own); null when
 * a trusted proxy says nothing, so only host and port can be compared.
 */
function requestScheme(req: IncomingMessage, trusted: TrustedProxies): "http:" | "https:" | null {
  if (trusted?.(normalizeAddress(req.socket.remoteAddress ?? ""))) {
    const xfp = req.headers["x-forwarded-proto"];
    const last = (Array.isArray(xfp) ? xfp.join(",") : xfp)?.split(",").pop()?.trim().toLowerCase();
    return last === "https" ? "https:" : last === "http" ? "http:" : null;
  }
  return (req.socket as TLSSocket).encrypted === true ? "https:" : "http:";
}

/** No Origin (not a browser, or a same-origin GET), or exactly the server's own. */
export function isSameOrigin(req: IncomingMessage, trusted: TrustedProxies): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  if (host === undefined) return false;
  let page: URL;
  try {
    page = new URL(origin);
  } catch {
    return false;
  }
  // A browser serializes an origin as scheme://host[:port]: anything else (userinfo, a path, "null") is not a page's.
  if (page.origin !== origin) return false;
  const scheme = requestScheme(req, trusted);
  if (scheme !== null && page.protocol !== scheme) return false;
  let own: URL;
  try {
    // Through URL too, so a default port written out in Host ("b.example:443") compares equal.
    own = new URL(`${page.protocol}//${host}`);
  } catch {
    return false;
  }
  return own.host === page.host;
}

export function sameOriginOnly(trusted: TrustedProxies): RequestHandler {
  return (req, res, next) => {
    if (isSameOrigin(req, trusted)) return next();
    sendError(
      res,
      403,
      "FOREIGN_ORIGIN",
      `writes are accepted only from this server's own pages, not from ${String(req.headers.origin).slice(0, 200)}`,
    );
  };
}
