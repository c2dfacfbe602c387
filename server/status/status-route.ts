// GET /status (HTML), GET /api/status (JSON) and GET /status.css: the public
// status page. Read-only, and safe to put on the internet: one answer is
// computed at most every STATUS_CACHE_MS however many ask (concurrent askers
// share it), and caches and browsers may keep it as long.
import express, { type Router } from "express";
import type { StatusResponse } from "../../shared/contract/status.js";
import { buildStatus, type StatusSources } from "./status-data.js";
import { STATUS_CSS } from "./status-css.js";
import { statusHtml } from "./status-html.js";

/** An answer is reused this long (ms), and public caches may keep it as long. */
export const STATUS_CACHE_MS = 10_000;
/** The stylesheet changes only with a new tailprobe (s). */
const CSS_MAX_AGE_S = 3600;

export function statusRouter(sources: StatusSources): Router {
  const router = express.Router();
  let cached: { atMs: number; answer: Promise<StatusResponse> } | undefined;
  const answer = (): Promise<StatusResponse> => {
    const now = sources.nowMs();
    if (cached === undefined || now - cached.atMs >= STATUS_CACHE_MS) {
      const pending = buildStatus(sources);
      cached = { atMs: now, answer: pending };
      // A failed answer is not kept: the next asker tries again.
      pending.catch(() => {
        if (cached?.answer === pending) cached = undefined;
      });
    }
    return cached.answer;
  };
  const cacheControl = `public, max-age=${STATUS_CACHE_MS / 1000}`;

  router.get("/api/status", (_req, res, next) => {
    answer().then((r) => void res.set("Cache-Control", cacheControl).json(r), next);
  });
  router.get("/status", (_req, res, next) => {
    answer().then((r) => void res.set("Cache-Control", cacheControl).type("html").send(statusHtml(r)), next);
  });
  router.get("/status.css", (_req, res) => {
    res.set("Cache-Control", `public, max-age=${CSS_MAX_AGE_S}`).type("css").send(STATUS_CSS);
  });
  return router;
}
