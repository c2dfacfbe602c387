// The per-address request budgets of one server: echo requests and sample
// batches. Beyond a budget the answer is 429 RATE_LIMITED with Retry-After,
// and nothing else is done for the request.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import { writeJson } from "../json-answer.js";
import { BURST_SECONDS, LIMITER_ADDRESSES_MAX, type LimitOptions } from "./limits-config.js";
import { RateLimiter, retryAfterSeconds } from "./rate-limiter.js";

export interface Budgets {
  /** For the raw echo handler: true to go on; false once a 429 has been sent. */
  admitEcho(req: IncomingMessage, res: ServerResponse): boolean;
  /** For POST /api/samples' raw path (server/api/ingest.ts): true to go on; false once a 429 has been sent. */
  admitIngest(req: IncomingMessage, res: ServerResponse): boolean;
  /** admitIngest as express middleware (the admin API's deletes, ingest's express path). */
  ingest: RequestHandler;
}

export const RATE_LIMITED = "RATE_LIMITED";

/** A raw path's admit check as express middleware: next() when admitted; refused, it has answered. */
export function admitting(admit: (req: IncomingMessage, res: ServerResponse) => boolean): RequestHandler {
  return (req, res, next) => {
    if (admit(req, res)) next();
  };
}

function send429(res: ServerResponse, retryAfterMs: number, what: string): void {
  writeJson(
    res,
    429,
    { error: `too many ${what} from your address; retry after Retry-After seconds`, code: RATE_LIMITED },
    {
      // A cross-origin probe page must be able to read the refusal as such.
      "Access-Control-Allow-Origin": "*",
      "Cache-Control": "no-store",
      "Retry-After": String(retryAfterSeconds(retryAfterMs)),
    },
  );
}

export function createBudgets(
  o: LimitOptions,
  address: (req: IncomingMessage) => string,
  nowMs: () => number,
): Budgets {
  if (!o.rateLimit) return { admitEcho: () => true, admitIngest: () => true, ingest: admitting(() => true) };
  const limiter = (perSecond: number) =>
    new RateLimiter({
      perSecond,
      burst: Math.max(1, perSecond * BURST_SECONDS),
      addressesMax: LIMITER_ADDRESSES_MAX,
      nowMs,
    });
  const echo = limiter(o.echoPerSecond);
  const ingest = limiter(o.ingestPerSecond);
  const admitIngest = (req: IncomingMessage, res: ServerResponse): boolean => {
    const v = ingest.take(address(req));
    if (v.ok) return true;
    send429(res, v.retryAfterMs, "sample batches");
    return false;
  };
  return {
    admitEcho(req, res) {
      const v = echo.take(address(req));
      if (v.ok) return true;
      send429(res, v.retryAfterMs, "echo requests");
      return false;
    },
    admitIngest,
    ingest: admitting(admitIngest),
  };
}
