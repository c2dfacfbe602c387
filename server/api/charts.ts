// GET /api/histogram, /api/cdf, /api/timeseries, /api/heatmap, /api/clients:
// the chart data of the histogram page, with the same filters as /api/stats.
import express, { type Request, type Response, type Router } from "express";
import type { z } from "zod";
import {
  cdfQuerySchema,
  clientsQuerySchema,
  heatmapQuerySchema,
  histogramQuerySchema,
  timeseriesQuerySchema,
  type ClientsResponse,
} from "../../shared/charts.js";
import { parseWith } from "../../shared/protocol.js";
import { filterFromQuery, type SampleFilter, type Store } from "../store/store.js";
import type { SampleFilterQuery } from "../store/sample-filter.js";
import { sendError } from "./http-error.js";
import { answerQuery } from "./query-errors.js";

/** Parses the query string and its filters; answers 400 INVALID_QUERY itself when they are bad. */
function parseQuery<T extends SampleFilterQuery>(
  schema: z.ZodType<T>,
  req: Request,
  res: Response,
  nowMs: number,
): { q: T; filter: SampleFilter } | null {
  const q = parseWith(schema, req.query);
  if (!q.ok) {
    sendError(res, 400, "INVALID_QUERY", q.error);
    return null;
  }
  const filter = filterFromQuery(q.value, nowMs);
  if (!filter.ok) {
    sendError(res, 400, "INVALID_QUERY", filter.error);
    return null;
  }
  return { q: q.value, filter: filter.value };
}

export function chartsRouter(store: Store, nowMs: () => number): Router {
  const router = express.Router();
  router.get("/api/histogram", (req, res, next) => {
    const p = parseQuery(histogramQuerySchema, req, res, nowMs());
    if (p) answerQuery(res, next, (signal) => store.histogram(p.filter, { binsPerDecade: p.q.binsPerDecade, signal }));
  });
  router.get("/api/cdf", (req, res, next) => {
    const p = parseQuery(cdfQuerySchema, req, res, nowMs());
    if (p) answerQuery(res, next, (signal) => store.cdf(p.filter, { signal }));
  });
  router.get("/api/timeseries", (req, res, next) => {
    const p = parseQuery(timeseriesQuerySchema, req, res, nowMs());
    if (p) answerQuery(res, next, (signal) => store.timeseries(p.filter, { bucketMs: p.q.bucketMs, signal }));
  });
  router.get("/api/heatmap", (req, res, next) => {
    const p = parseQuery(heatmapQuerySchema, req, res, nowMs());
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
