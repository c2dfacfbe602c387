// The stress test's load paths, answered on node:http alone (in the load
// thread, server/stress/load-thread.ts, on ports of their own):
//   GET  /stress/down?bytes=N  N incompressible bytes (random, never compressed)
//   POST /stress/up            a body of Content-Length bytes, read and thrown away
//   GET  /stress/ping          204: the page's round trip on a load connection (RPM's self probe)
// Any origin may call them (the page's origin is another port), none may
// cache. Each download and upload is a stream under the address's budget
// (server/limits/stress-budget.ts); beyond it: 429 with Retry-After.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { writeJson } from "../json-answer.js";
import type { StressBudget, StressRefusal } from "../limits/stress-budget.js";
import type { StressPacing } from "../limits/stress-pacing.js";
import { retryAfterSeconds } from "../limits/rate-limiter.js";

/** Largest download or upload one request may ask for (bytes); the page asks for about a second's worth. */
export const LOAD_REQUEST_BYTES_MAX = 64 * 1024 * 1024;
/** Bytes handed to the socket per write: large writes cost the thread fewer turns per Gbit/s. */
const WRITE_BYTES = 256 * 1024;
/** The random bytes repeat with this period: longer than any HTTP compressor's window but brotli's largest. */
const RANDOM_PERIOD_BYTES = 4 * 1024 * 1024;

const COMMON_HEADERS = {
  "Cache-Control": "no-store",
  "Access-Control-Allow-Origin": "*",
  "Timing-Allow-Origin": "*",
  "Cross-Origin-Resource-Policy": "cross-origin",
} as const;

export interface LoadDeps {
  budget: StressBudget;
  /** Each address's rate per direction (--stress-mbps-per-address). */
  pacing: StressPacing;
  /** The client's address as the budgets key it (X-Forwarded-For only from a trusted proxy). */
  address(req: IncomingMessage): string;
}

const REFUSALS: Record<StressRefusal, string> = {
  bytes: "this address has used its stress-test bytes for the hour",
  streams: "this address holds as many load streams as it may",
  "server-streams": "the server is carrying as many load streams as it may",
};

function sendError(res: ServerResponse, status: number, code: string, error: string, extra = {}): void {
  writeJson(res, status, { error, code }, { ...COMMON_HEADERS, ...extra });
}

function refuse(res: ServerResponse, why: StressRefusal, retryAfterMs: number): void {
  const s = retryAfterSeconds(retryAfterMs);
  sendError(res, 429, "STRESS_BUDGET", `${REFUSALS[why]}; retry after ${s} s`, {
    "Retry-After": String(s),
    // The page is of another origin: without this its fetch cannot read Retry-After,
    // and a stream cap full for a second looked like the hour's budget spent.
    "Access-Control-Expose-Headers": "Retry-After",
    Connection: "close",
  });
}

/** Answers a request to a load path; every other path is 404. */
export function loadHandler(deps: LoadDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const random = randomBytes(RANDOM_PERIOD_BYTES + WRITE_BYTES);
  return (req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (req.method === "OPTIONS" && path.startsWith("/stress/")) {
      // The page's requests are simple (GET, POST with an untyped body): no preflight is sent; answered anyway.
      res.writeHead(204, {
        ...COMMON_HEADERS,
        "Access-Control-Allow-Methods": "GET, POST",
        "Access-Control-Max-Age": "600",
      });
      res.end();
      return;
    }
    if (path === "/stress/ping") {
      if (req.method !== "GET") return sendError(res, 405, "METHOD_NOT_ALLOWED", "/stress/ping answers GET only");
      res.writeHead(204, COMMON_HEADERS);
      res.end();
      return;
    }
    if (path === "/stress/down") {
      if (req.method !== "GET") return sendError(res, 405, "METHOD_NOT_ALLOWED", "/stress/down answers GET only");
      const raw = new URLSearchParams(q < 0 ? "" : url.slice(q + 1)).getAll("bytes");
      const bytes = raw.length === 1 && /^\d{1,12}$/.test(raw[0]!) ? Number(raw[0]) : Number.NaN;
      if (!(bytes >= 1 && bytes <= LOAD_REQUEST_BYTES_MAX))
        return sendError(res, 400, "BAD_BYTES", `bytes must be given once, from 1 to ${LOAD_REQUEST_BYTES_MAX}`);
      return download(req, res, deps, random, bytes);
    }
    if (path === "/stress/up") {
      if (req.method !== "POST") return sendError(res, 405, "METHOD_NOT_ALLOWED", "/stress/up answers POST only");
      return upload(req, res, deps);
    }
    sendError(res, 404, "NOT_FOUND", "no such path");
  };
}

function download(req: IncomingMessage, res: ServerResponse, deps: LoadDeps, random: Buffer, bytes: number): void {
  const address = deps.address(req);
  const admission = deps.budget.take(address, bytes);
  if (!admission.ok) return refuse(res, admission.why, admission.retryAfterMs);
  let sent = 0;
  res.once("close", () => admission.release(sent));
  res.writeHead(200, {
    ...COMMON_HEADERS,
    "Content-Type": "application/octet-stream",
    "Content-Length": String(bytes),
  });
  /** Hands the next n bytes to the socket; false when it wants a drain first. */
  const write = (n: number): boolean => {
    const at = sent % RANDOM_PERIOD_BYTES;
    sent += n;
    return res.write(random.subarray(at, at + n));
  };
  const pump = (): void => {
    while (sent < bytes && !res.destroyed) {
      const n = Math.min(WRITE_BYTES, bytes - sent);
      const waitMs = deps.pacing.delayMs(address, "down", n);
      if (waitMs > 0) {
        // The chunk's turn is booked: it is written when it comes, then the pump goes on.
        setTimeout(() => {
          if (res.destroyed) return;
          if (write(n)) pump();
          else res.once("drain", pump);
        }, waitMs);
        return;
      }
      if (!write(n)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

function upload(req: IncomingMessage, res: ServerResponse, deps: LoadDeps): void {
  const header = req.headers["content-length"];
  if (header === undefined || !/^\d{1,12}$/.test(header)) {
    // Without a length the budget cannot be asked first (and streaming uploads are Chromium's alone).
    return sendError(res, 411, "LENGTH_REQUIRED", "an upload needs a Content-Length", { Connection: "close" });
  }
  const bytes = Number(header);
  if (bytes > LOAD_REQUEST_BYTES_MAX)
    return sendError(res, 413, "TOO_LARGE", `an upload may carry at most ${LOAD_REQUEST_BYTES_MAX} bytes`, {
      Connection: "close",
    });
  const address = deps.address(req);
  const admission = deps.budget.take(address, bytes);
  let received = 0;
  req.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (!admission.ok) return;
    // Read on at the address's rate: while paused, TCP slows the sender.
    const waitMs = deps.pacing.delayMs(address, "up", chunk.length);
    if (waitMs > 0) {
      req.pause();
      setTimeout(() => req.resume(), waitMs);
    }
  });
  if (!admission.ok) {
    // Answered now, the body still read and thrown away (at most the limit above): a browser
    // reads no answer while it is still sending, so a reset connection would hide the 429.
    refuse(res, admission.why, admission.retryAfterMs);
    return;
  }
  req.once("close", () => admission.release(received));
  req.once("end", () => writeJson(res, 200, { bytes: received }, COMMON_HEADERS));
}
