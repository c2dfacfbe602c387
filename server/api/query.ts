// Read-only JSON endpoints behind the histogram page.
import express, { type Router } from "express";
import { statsQuerySchema, type StatsResponse } from "../../shared/contract/index.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import { PROBE_METHODS } from "../../shared/methods.js";
import type { Queries } from "../query/queries.js";
import { coarsestResolutionMs } from "../query/timer-resolution.js";
import { parseFilterQuery } from "./filter-query.js";
import { answerQuery } from "./query-errors.js";

const pageTimed = new Set<string>(PROBE_METHODS);

export function queryRouter(store: Queries, nowMs: () => number, clients: ClientDirectory): Router {
  const router = express.Router();
  router.get("/api/stats", (req, res, next) => {
    const p = parseFilterQuery(statsQuerySchema, req, res, nowMs(), clients);
    if (p === null) return;
    const f = p.filter;
    answerQuery(res, next, async (signal): Promise<StatsResponse> => {
      const rows = await store.stats(f, { signal });
      const engines = await store.sessionClocks(f);
      const coarsest = coarsestResolutionMs(engines);
      return {
        from: f.fromMs,
        to: f.toMs,
        // The page's clock timed its probes; baselines are the servers' measurements.
        rows: rows.map((r) => ({ ...r, timerResolutionMs: pageTimed.has(r.method) ? coarsest : null })),
        timerResolutionMs: coarsest,
        engines,
      };
    });
  });
  return router;
}
