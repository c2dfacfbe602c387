// Errors at the HTTP boundary are values with a status and a code, answered as JSON.
// No answer carries a server path, a stack or a library's message; none may be cached.
import type { ServerResponse } from "node:http";
import type { ErrorRequestHandler } from "express";
import { writeJson } from "../json-answer.js";
import { classifyStorageError } from "../storage-faults.js";

/** On node:http alone, so the paths answered before express (a page's report) answer errors the same way. */
export function sendError(res: ServerResponse, status: number, code: string, error: string): void {
  writeJson(res, status, { error, code }, { "Cache-Control": "no-store" });
}

/** Fixed answers for errors raised by express and its middleware, whose messages may name files. */
const LIBRARY_ERRORS: Record<number, [code: string, error: string]> = {
  400: ["BAD_REQUEST", "malformed request"],
  403: ["NOT_FOUND", "no such path"],
  404: ["NOT_FOUND", "no such path"],
  405: ["METHOD_NOT_ALLOWED", "method not allowed"],
  415: ["BAD_REQUEST", "unsupported content type or encoding"],
};

/** Turns body-parser and unexpected errors into JSON answers; never leaks a stack or a path. */
export const jsonErrorHandler: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
  const e = err as { type?: string; status?: number };
  if (e.type === "entity.parse.failed") return sendError(res, 400, "BAD_JSON", "body is not valid JSON");
  if (e.type === "entity.too.large") return sendError(res, 413, "TOO_LARGE", "body is too large");
  if (typeof e.status === "number" && e.status >= 400 && e.status < 500) {
    const [code, error] = LIBRARY_ERRORS[e.status] ?? ["BAD_REQUEST", "bad request"];
    return sendError(res, e.status === 403 ? 404 : e.status, code, error);
  }
  // A query that met a locked, full or damaged database, or a PostgreSQL that
  // is away: try again later, and the advice says why (ingest logs the fault).
  const fault = classifyStorageError(err);
  if (fault !== undefined) {
    res.set("Retry-After", String(fault.retryAfterS));
    return sendError(res, 503, "STORAGE_UNAVAILABLE", `storage unavailable (${fault.kind}): ${fault.advice}`);
  }
  console.error("tailprobe: unexpected error:", err);
  sendError(res, 500, "INTERNAL", "internal error");
};
