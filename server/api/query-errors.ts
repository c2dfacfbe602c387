// Answering an asynchronous store query: the result as JSON, a query over the
// caps as 400 QUERY_TOO_LARGE, anything else to the JSON error handler.
import type { NextFunction, Response } from "express";
import { QueryTooLargeError } from "../store/store.js";
import { sendError } from "./http-error.js";

export function answerQuery(res: Response, next: NextFunction, run: () => Promise<unknown>): void {
  run().then(
    (body) => {
      res.set("Cache-Control", "no-store").json(body);
    },
    (err: unknown) => {
      if (err instanceof QueryTooLargeError) return sendError(res, 400, err.code, err.message);
      next(err);
    },
  );
}
