// Read-only JSON endpoints behind the histogram page.
import express, { type Router } from "express";
import { parseWith, statsQuerySchema, type StatsResponse } from "../../shared/protocol.js";
import { filterFromQuery, type Store } from "../store/store.js";
import { answerQuery } from "./query-errors.js";
import { sendError } from "./http-error.js";

export function queryRouter(store: Store, nowMs: () => number): Router {
  const router = express.Router();
  router.get("/api/stats", (req, res, next) => {
    const q = parseWith(statsQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    const filter = filterFromQuery(q.value, nowMs());
    if (!filter.ok) return sendError(res, 400, "INVALID_QUERY", filter.error);
    const f = filter.value;
    answerQuery(res, next, async (signal): Promise<StatsResponse> => ({
      from: f.fromMs,
      to: f.toMs,
      rows: await store.stats(f, { signal }),
    }));
  });
  return router;
}
