// Answering an asynchronous store query: the result as JSON, a query over the
// caps as 400 QUERY_TOO_LARGE, storage unavailable (PostgreSQL down) as 503
// with the reason and Retry-After, anything else to the JSON error handler. A
// query whose asker hung up is stopped at its next slice and answered to no one.
import type { NextFunction, Response } from "express";
import { QueryAbortedError, QueryTooLargeError } from "../store/store.js";
import { sendError } from "./http-error.js";
import { classifyStorageError } from "../storage-faults.js";

export function answerQuery(res: Response, next: NextFunction, run: (signal: AbortSignal) => Promise<unknown>): void {
  const gone = new AbortController();
  const onClose = () => {
    if (!res.writableEnded) gone.abort();
  };
  res.on("close", onClose);
  run(gone.signal).then(
    (body) => {
      res.off("close", onClose);
      if (!gone.signal.aborted) res.set("Cache-Control", "no-store").json(body);
    },
    (err: unknown) => {
      res.off("close", onClose);
      if (err instanceof QueryAbortedError) return;
      if (err instanceof QueryTooLargeError) return sendError(res, 400, err.code, err.message);
      const fault = classifyStorageError(err);
      if (fault !== undefined)
        return void res
          .status(503)
          .set({ "Retry-After": String(fault.retryAfterS), "Cache-Control": "no-store" })
          .json({ error: `storage unavailable (${fault.kind}): ${fault.advice}`, code: "STORAGE_UNAVAILABLE" });
      next(err);
    },
  );
}
