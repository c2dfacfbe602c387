// Answering an asynchronous store query: the result as JSON, a query over the
// caps as 400 QUERY_TOO_LARGE, anything else to the JSON error handler. A
// query whose asker hung up is stopped at its next slice and answered to no one.
import type { NextFunction, Response } from "express";
import { QueryAbortedError } from "../store/errors.js";
import { QueryTooLargeError } from "../query/too-large.js";
import { sendError } from "./http-error.js";

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
      next(err);
    },
  );
}
