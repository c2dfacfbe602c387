// GET /api/incidents?from=MS&to=MS: the incidents the health monitors opened
// (server/health/), with where the fault lies; open ones have end null.
import express, { type Router } from "express";
import { INCIDENTS_MAX, incidentsQuerySchema, parseWith, type IncidentsResponse } from "../../shared/contract/index.js";
import type { IncidentStore } from "../store/incidents.js";
import { sendError } from "./http-error.js";

export function incidentsRouter(store: Pick<IncidentStore, "incidentsBetween">, nowMs: () => number): Router {
  const router = express.Router();
  router.get("/api/incidents", (req, res, next) => {
    const q = parseWith(incidentsQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    const from = q.value.from ?? 0;
    const to = q.value.to ?? nowMs();
    if (from > to) return sendError(res, 400, "INVALID_QUERY", "from must not be in the future");
    store.incidentsBetween(from, to, INCIDENTS_MAX).then((r) => {
      const body: IncidentsResponse = { from, to, ...r };
      res.set("Cache-Control", "no-store").json(body);
    }, next);
  });
  return router;
}
