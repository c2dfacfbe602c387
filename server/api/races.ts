// GET /api/races: availability per server and what best-of-two bought, for the histogram page.
import express, { type Router } from "express";
import { parseWith, statsQuerySchema } from "../../shared/protocol.js";
import type { RacesResponse } from "../../shared/races.js";
import { filterFromQuery, type Store } from "../store/store.js";
import { sendError } from "./http-error.js";
import { answerQuery } from "./query-errors.js";

export function racesRouter(store: Store, nowMs: () => number): Router {
  const router = express.Router();
  // The same filters as /api/stats, so the panel always describes the table above it.
  router.get("/api/races", (req, res, next) => {
    const q = parseWith(statsQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    const filter = filterFromQuery(q.value, nowMs());
    if (!filter.ok) return sendError(res, 400, "INVALID_QUERY", filter.error);
    answerQuery(res, next, (signal): Promise<RacesResponse> => store.races(filter.value, { signal }));
  });
  return router;
}
