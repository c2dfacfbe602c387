// GET /api/races: availability per server and what best-of-two bought, for the histogram page.
import express, { type Router } from "express";
import { statsQuerySchema, type RacesResponse } from "../../shared/contract/index.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { Queries } from "../query/queries.js";
import { parseFilterQuery } from "./filter-query.js";
import { answerQuery } from "./query-errors.js";

export function racesRouter(store: Queries, nowMs: () => number, clients: ClientDirectory): Router {
  const router = express.Router();
  // The same filters as /api/stats, so the panel always describes the table above it.
  router.get("/api/races", (req, res, next) => {
    const p = parseFilterQuery(statsQuerySchema, req, res, nowMs(), clients);
    if (p) answerQuery(res, next, (signal): Promise<RacesResponse> => store.races(p.filter, { signal }));
  });
  return router;
}
