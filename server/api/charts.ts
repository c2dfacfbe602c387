// GET /api/histogram, /api/cdf, /api/timeseries, /api/heatmap, /api/clients:
// the chart data of the histogram page, with the same filters as /api/stats.
import express, { type Router } from "express";
import {
  cdfQuerySchema,
  clientsQuerySchema,
  heatmapQuerySchema,
  histogramQuerySchema,
  timeseriesQuerySchema,
  type ClientInfo,
  type ClientsResponse,
  parseWith,
} from "../../shared/contract/index.js";
import type { StoredClient } from "../query/stored-client.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { Queries } from "../query/queries.js";
import { parseFilterQuery } from "./filter-query.js";
import { sendError } from "./http-error.js";
import { answerQuery } from "./query-errors.js";

/** What the public may know of a client: no clientId, no address, no full user agent. */
export function publicClient(c: StoredClient, clients: ClientDirectory): ClientInfo {
  return {
    id: clients.publicId(c.clientId),
    label: c.label,
    browser: c.browser === null ? null : browserFamily(c.browser),
    firstSeen: c.firstSeen,
    lastSeen: c.lastSeen,
    sessions: c.sessions,
  };
}

/** "Firefox 121" → "Firefox": the version narrows a client down for no use of the page's. */
function browserFamily(browser: string): string {
  return browser.replace(/\s+[\d.]+$/, "");
}

export function chartsRouter(store: Queries, nowMs: () => number, clients: ClientDirectory): Router {
  const router = express.Router();
  router.get("/api/histogram", (req, res, next) => {
    const p = parseFilterQuery(histogramQuerySchema, req, res, nowMs(), clients);
    if (p) answerQuery(res, next, (signal) => store.histogram(p.filter, { binsPerDecade: p.q.binsPerDecade, signal }));
  });
  router.get("/api/cdf", (req, res, next) => {
    const p = parseFilterQuery(cdfQuerySchema, req, res, nowMs(), clients);
    if (p) answerQuery(res, next, (signal) => store.cdf(p.filter, { signal }));
  });
  router.get("/api/timeseries", (req, res, next) => {
    const p = parseFilterQuery(timeseriesQuerySchema, req, res, nowMs(), clients);
    if (p) answerQuery(res, next, (signal) => store.timeseries(p.filter, { bucketMs: p.q.bucketMs, signal }));
  });
  router.get("/api/heatmap", (req, res, next) => {
    const p = parseFilterQuery(heatmapQuerySchema, req, res, nowMs(), clients);
    if (p)
      answerQuery(res, next, (signal) =>
        store.heatmap(p.filter, { bucketMs: p.q.bucketMs, binsPerDecade: p.q.binsPerDecade, signal }),
      );
  });
  router.get("/api/clients", (req, res, next) => {
    const q = parseWith(clientsQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    answerQuery(
      res,
      next,
      async (): Promise<ClientsResponse> => ({ clients: (await store.clients()).map((c) => publicClient(c, clients)) }),
    );
  });
  return router;
}
