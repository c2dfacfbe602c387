// GET /api/races: availability per server and what best-of-two bought, for the histogram page.
import express, { type Router } from "express";
import { parseWith, statsQuerySchema } from "../../shared/protocol.js";
import { filterFromQuery, type Store } from "../store/store.js";
import { sendError } from "./http-error.js";

export function racesRouter(store: Store, nowMs: () => number): Router {
  const router = express.Router();
  router.get("/api/races", async (req, res) => {
    const q = parseWith(statsQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    const body = await store.races(filterFromQuery(q.value, nowMs()));
    res.set("Cache-Control", "no-store").json(body);
  });
  return router;
}
