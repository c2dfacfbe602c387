// Errors at the HTTP boundary are values with a status and a code, answered as JSON.
import type { ErrorRequestHandler, Response } from "express";

export function sendError(res: Response, status: number, code: string, error: string): void {
  res.status(status).json({ error, code });
}

/** Turns body-parser and unexpected errors into JSON answers; never leaks a stack. */
export const jsonErrorHandler: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
  const e = err as { type?: string; status?: number; message?: string };
  if (e.type === "entity.parse.failed") return sendError(res, 400, "BAD_JSON", "body is not valid JSON");
  if (e.type === "entity.too.large") return sendError(res, 413, "TOO_LARGE", "body is too large");
  if (typeof e.status === "number" && e.status >= 400 && e.status < 500)
    return sendError(res, e.status, "BAD_REQUEST", e.message ?? "bad request");
  console.error("tailprobe: unexpected error:", err);
  sendError(res, 500, "INTERNAL", "internal error");
};
