// Read-only JSON endpoints behind the histogram page.
import express, { type Router } from "express";
import { parseWith, statsQuerySchema, type StatsResponse } from "../../shared/protocol.js";
import { filterFromQuery, type Store } from "../store/store.js";
import { sendError } from "./http-error.js";

export function queryRouter(store: Store, nowMs: () => number): Router {
  const router = express.Router();
  router.get("/api/stats", (req, res) => {
    const q = parseWith(statsQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    const filter = filterFromQuery(q.value, nowMs());
    const body: StatsResponse = { from: filter.fromMs, to: filter.toMs, rows: store.stats(filter) };
    res.set("Cache-Control", "no-store").json(body);
  });
  return router;
}
