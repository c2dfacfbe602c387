// Anything that writes data accepts only the server's own pages: a browser
// always sends Origin on a cross-origin POST, so a foreign one is refused.
import type { RequestHandler } from "express";
import { sendError } from "./http-error.js";

export function sameOriginOnly(): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next(); // not a browser, or a same-origin GET
    const host = req.headers.host;
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = undefined;
    }
    if (host === undefined || originHost !== host) {
      return sendError(res, 403, "FOREIGN_ORIGIN", `writes are accepted only from this server's own pages, not from ${origin}`);
    }
    next();
  };
}
