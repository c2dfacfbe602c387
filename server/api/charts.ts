// GET /api/histogram, /api/cdf, /api/timeseries, /api/heatmap, /api/clients:
// the chart data of the histogram page, with the same filters as /api/stats.
import express, { type Router } from "express";
import {
  cdfQuerySchema,
  clientsQuerySchema,
  heatmapQuerySchema,
  histogramQuerySchema,
  timeseriesQuerySchema,
  type ClientsResponse,
} from "../../shared/charts.js";
import { parseWith } from "../../shared/protocol.js";
import type { Store } from "../store/store.js";
import { parseFilterQuery } from "./filter-query.js";
import { sendError } from "./http-error.js";
import { answerQuery } from "./query-errors.js";

export function chartsRouter(store: Store, nowMs: () => number): Router {
  const router = express.Router();
  router.get("/api/histogram", (req, res, next) => {
    const p = parseFilterQuery(histogramQuerySchema, req, res, nowMs());
    if (p) answerQuery(res, next, (signal) => store.histogram(p.filter, { binsPerDecade: p.q.binsPerDecade, signal }));
  });
  router.get("/api/cdf", (req, res, next) => {
    const p = parseFilterQuery(cdfQuerySchema, req, res, nowMs());
    if (p) answerQuery(res, next, (signal) => store.cdf(p.filter, { signal }));
  });
  router.get("/api/timeseries", (req, res, next) => {
    const p = parseFilterQuery(timeseriesQuerySchema, req, res, nowMs());
    if (p) answerQuery(res, next, (signal) => store.timeseries(p.filter, { bucketMs: p.q.bucketMs, signal }));
  });
  router.get("/api/heatmap", (req, res, next) => {
    const p = parseFilterQuery(heatmapQuerySchema, req, res, nowMs());
    if (p)
      answerQuery(res, next, (signal) =>
        store.heatmap(p.filter, { bucketMs: p.q.bucketMs, binsPerDecade: p.q.binsPerDecade, signal }),
      );
  });
  router.get("/api/clients", (req, res, next) => {
    const q = parseWith(clientsQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    answerQuery(res, next, async (): Promise<ClientsResponse> => ({ clients: await store.clients() }));
  });
  return router;
}
