// Anything that writes data accepts only the server's own pages: a browser
// always sends Origin on a cross-origin POST, so a foreign one is refused.
import type { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";
import { sendError } from "./http-error.js";

/** No Origin (not a browser, or a same-origin GET), or the server's own. */
export function isSameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = undefined;
  }
  return host !== undefined && originHost === host;
}

export function sameOriginOnly(): RequestHandler {
  return (req, res, next) => {
    if (isSameOrigin(req)) return next();
    sendError(
      res,
      403,
      "FOREIGN_ORIGIN",
      `writes are accepted only from this server's own pages, not from ${req.headers.origin}`,
    );
  };
}
