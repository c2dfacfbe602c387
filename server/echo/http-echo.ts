// GET /echo and GET /jsonp, answered on the raw node:http request before
// express sees it: the echo path must add nothing but the headers it needs.
import type { IncomingMessage, ServerResponse } from "node:http";
import { isValidJsonpCallback } from "../../shared/names.js";
import { writeJson } from "../json-answer.js";
import { NO_STALL, type EchoStall } from "./echo-stall.js";
import type { LoopLag } from "./loop-lag.js";

const ECHO_BODY = '{"ok":true}';

/**
 * Headers every echo answer carries: any origin may probe, nothing may cache.
 * Cross-Origin-Resource-Policy lets a cross-origin isolated page (COEP
 * require-corp, server/static-pages.ts) load another server's /jsonp as a script.
 */
const COMMON_HEADERS = {
  "Cache-Control": "no-store",
  "Access-Control-Allow-Origin": "*",
  "Timing-Allow-Origin": "*",
  "Cross-Origin-Resource-Policy": "cross-origin",
} as const;

/** `app` is the handler's receive-to-send time (ms), stored as the sample's serverMs; `lag` the event loop's delay. */
function serverTiming(startNs: bigint, lag: LoopLag): string {
  const appMs = Number(process.hrtime.bigint() - startNs) / 1e6;
  return `app;dur=${appMs.toFixed(3)}, lag;dur=${lag.currentMs().toFixed(1)}`;
}

function sendError(res: ServerResponse, status: number, code: string, error: string): void {
  writeJson(res, status, { error, code }, COMMON_HEADERS);
}

/**
 * Answers the request if it is for an echo path; returns false to let the app
 * handle it. `admit` may refuse it first (a rate limit), having answered it itself.
 */
export function handleEcho(
  req: IncomingMessage,
  res: ServerResponse,
  lag: LoopLag,
  stall: EchoStall = NO_STALL,
  admit: (req: IncomingMessage, res: ServerResponse) => boolean = () => true,
): boolean {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  if (pathname !== "/echo" && pathname !== "/jsonp") return false;
  const startNs = process.hrtime.bigint();
  if (!admit(req, res)) return true;

  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    sendError(res, 405, "METHOD_NOT_ALLOWED", `${pathname} answers GET only`);
    return true;
  }

  let body: string;
  let contentType: string;
  if (pathname === "/echo") {
    body = ECHO_BODY;
    contentType = "application/json; charset=utf-8";
  } else {
    // Exactly one callback parameter: with two, which one a cache or proxy honours is anyone's guess.
    const callbacks = new URLSearchParams(q < 0 ? "" : url.slice(q + 1)).getAll("callback");
    const callback = callbacks.length === 1 ? callbacks[0] : undefined;
    if (!isValidJsonpCallback(callback)) {
      sendError(
        res,
        400,
        "BAD_CALLBACK",
        "callback must be given once, as one JavaScript identifier (letters, digits, _ and $; at most 64)",
      );
      return true;
    }
    // The typeof guard makes a late answer (after the page gave up and deleted
    // the callback) a no-op instead of a ReferenceError.
    body = `/**/ typeof ${callback}==='function' && ${callback}(${ECHO_BODY});`;
    contentType = "text/javascript; charset=utf-8";
  }
  const answer = () => {
    // Every header written out, not spread from COMMON_HEADERS: a spread object
    // grown by five more keys was ~1 kB a request (a sampling heap profile at
    // 2,000 tabs put a fifth of the event loop's promoted bytes here).
    res.writeHead(200, {
      "Cache-Control": COMMON_HEADERS["Cache-Control"],
      "Access-Control-Allow-Origin": COMMON_HEADERS["Access-Control-Allow-Origin"],
      "Timing-Allow-Origin": COMMON_HEADERS["Timing-Allow-Origin"],
      "Cross-Origin-Resource-Policy": COMMON_HEADERS["Cross-Origin-Resource-Policy"],
      "Content-Type": contentType,
      "Content-Length": Buffer.byteLength(body),
      "X-Content-Type-Options": "nosniff",
      "Server-Timing": serverTiming(startNs, lag),
    });
    res.end(req.method === "HEAD" ? undefined : body);
  };
  const delayMs = stall.delayMs();
  if (delayMs > 0) setTimeout(answer, delayMs);
  else answer();
  return true;
}
