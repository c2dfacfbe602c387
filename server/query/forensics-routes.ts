// The forensics endpoints (contract: shared/contract/forensics.ts), each parsed with
// the /api/stats filter parser and answered through the shared query runner.
import express, { type Router } from "express";
import {
  attributionQuerySchema,
  type AttributionResponse,
  compareQuerySchema,
  FANOUT_N_DEFAULT,
  fanoutQuerySchema,
  periodicityQuerySchema,
} from "../../shared/contract/index.js";
import { parseFilterQuery } from "../api/filter-query.js";
import { sendError } from "../api/http-error.js";
import { answerQuery } from "../api/query-errors.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { Store } from "../store/store.js";
import type { Queries } from "./queries.js";
import { attributionQuery } from "./attribution-query.js";
import { compareQuery, compareSides } from "./compare-query.js";
import { fanoutQuery } from "./fanout-query.js";
import { periodicityQuery } from "./periodicity-query.js";

export function forensicsRouter(
  store: Pick<Store, "openPageReader"> & Pick<Queries, "timeseries">,
  nowMs: () => number,
  clients: ClientDirectory,
): Router {
  const router = express.Router();
  router.get("/api/attribution", (req, res, next) => {
    const p = parseFilterQuery(attributionQuerySchema, req, res, nowMs(), clients);
    if (p === null) return;
    answerQuery(res, next, async (): Promise<AttributionResponse> => {
      const r = await attributionQuery(store, p.filter, p.q);
      if (r.sample === null) return { ...r, sample: null };
      // Shown by its public id: the clientId is the browser's secret.
      return { ...r, sample: { ...r.sample, client: clients.publicId(r.sample.client) } };
    });
  });
  router.get("/api/compare", (req, res, next) => {
    const p = parseFilterQuery(compareQuerySchema, req, res, nowMs(), clients);
    if (p === null) return;
    // aClient/bClient are public ids, as ?client= is; one nobody has matches nothing.
    const toClientId = (id: string | undefined) => (id === undefined ? undefined : (clients.clientIdOf(id) ?? ""));
    const sides = compareSides(p.filter, {
      ...p.q,
      aClient: toClientId(p.q.aClient),
      bClient: toClientId(p.q.bClient),
    });
    if (typeof sides === "string") return sendError(res, 400, "INVALID_QUERY", sides);
    answerQuery(res, next, () => compareQuery(store, sides));
  });
  router.get("/api/periodicity", (req, res, next) => {
    const p = parseFilterQuery(periodicityQuerySchema, req, res, nowMs(), clients);
    if (p === null) return;
    answerQuery(res, next, (signal) => periodicityQuery(store, p.filter, p.q.bucketMs, signal));
  });
  router.get("/api/fanout", (req, res, next) => {
    const p = parseFilterQuery(fanoutQuerySchema, req, res, nowMs(), clients);
    if (p === null) return;
    const [primary, secondary] = p.q.target!;
    answerQuery(res, next, () =>
      fanoutQuery(store, p.filter, p.q.method![0]!, primary!, secondary!, p.q.n ?? FANOUT_N_DEFAULT, p.q.hedgeMs),
    );
  });
  return router;
}
