// Read-only JSON endpoints behind the histogram page.
import express, { type Router } from "express";
import { statsQuerySchema, type StatsResponse } from "../../shared/contract/index.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { Queries } from "../query/queries.js";
import { parseFilterQuery } from "./filter-query.js";
import { answerQuery } from "./query-errors.js";

export function queryRouter(store: Queries, nowMs: () => number, clients: ClientDirectory): Router {
  const router = express.Router();
  router.get("/api/stats", (req, res, next) => {
    const p = parseFilterQuery(statsQuerySchema, req, res, nowMs(), clients);
    if (p === null) return;
    const f = p.filter;
    answerQuery(
      res,
      next,
      async (signal): Promise<StatsResponse> => ({
        from: f.fromMs,
        to: f.toMs,
        rows: await store.stats(f, { signal }),
        timerResolutionMs: await store.timerResolution(f),
      }),
    );
  });
  return router;
}
