// GET /api/changes?from=MS&to=MS[&method=&target=&client=] (contract:
// shared/contract/changes.ts): the level shifts of every series in the range,
// clients named by their public ids.
import express, { type Router } from "express";
import { changesQuerySchema, parseWith, type ChangesResponse } from "../../shared/contract/index.js";
import { sendError } from "../api/http-error.js";
import { answerQuery } from "../api/query-errors.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { StoreWithQueries } from "../query/with-queries.js";
import { publicChange } from "./source.js";

export function changesRouter(store: StoreWithQueries, clients: ClientDirectory): Router {
  const router = express.Router();
  router.get("/api/changes", (req, res, next) => {
    const q = parseWith(changesQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    const { from, to, method, target, client } = q.value;
    // A public id nobody here has matches no client ("" is no clientId).
    const clientId = client === undefined ? undefined : (clients.clientIdOf(client) ?? "");
    answerQuery(res, next, async (signal): Promise<ChangesResponse> => {
      const found = await store.changes(
        { fromMs: from, toMs: to, methods: method, targets: target, clientId, nameOf: (id) => clients.publicId(id) },
        { signal },
      );
      return { from, to, changes: found.map((c) => publicChange(c, clients)) };
    });
  });
  return router;
}
