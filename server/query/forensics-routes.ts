// The forensics endpoints (contract: shared/forensics/api.ts), each parsed with
// the /api/stats filter parser and answered through the shared query runner.
import express, { type Router } from "express";
import {
  attributionQuerySchema,
  compareQuerySchema,
  FANOUT_N_DEFAULT,
  fanoutQuerySchema,
  periodicityQuerySchema,
} from "../../shared/forensics/api.js";
import { parseFilterQuery } from "../api/filter-query.js";
import { sendError } from "../api/http-error.js";
import { answerQuery } from "../api/query-errors.js";
import type { Store } from "../store/store.js";
import { attributionQuery } from "./attribution-query.js";
import { compareQuery, compareSides } from "./compare-query.js";
import { fanoutQuery } from "./fanout-query.js";
import { periodicityQuery } from "./periodicity-query.js";

export function forensicsRouter(store: Store, nowMs: () => number): Router {
  const router = express.Router();
  router.get("/api/attribution", (req, res, next) => {
    const p = parseFilterQuery(attributionQuerySchema, req, res, nowMs());
    if (p === null) return;
    answerQuery(res, next, () => attributionQuery(store, p.filter, p.q));
  });
  router.get("/api/compare", (req, res, next) => {
    const p = parseFilterQuery(compareQuerySchema, req, res, nowMs());
    if (p === null) return;
    const sides = compareSides(p.filter, p.q);
    if (typeof sides === "string") return sendError(res, 400, "INVALID_QUERY", sides);
    answerQuery(res, next, () => compareQuery(store, sides));
  });
  router.get("/api/periodicity", (req, res, next) => {
    const p = parseFilterQuery(periodicityQuerySchema, req, res, nowMs());
    if (p === null) return;
    answerQuery(res, next, (signal) => periodicityQuery(store, p.filter, p.q.bucketMs, signal));
  });
  router.get("/api/fanout", (req, res, next) => {
    const p = parseFilterQuery(fanoutQuerySchema, req, res, nowMs());
    if (p === null) return;
    const [primary, secondary] = p.q.target!;
    answerQuery(res, next, () =>
      fanoutQuery(store, p.filter, p.q.method![0]!, primary!, secondary!, p.q.n ?? FANOUT_N_DEFAULT, p.q.hedgeMs),
    );
  });
  return router;
}
