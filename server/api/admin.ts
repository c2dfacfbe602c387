// The admin API: destructive operations for the operator, enabled only by
// --admin-token (or TAILPROBE_ADMIN_TOKEN). Without a token its paths do not
// exist (404). POST/DELETE only, no CORS, the token compared in constant time.
//   DELETE /api/admin/clients/:id   one client's samples and sessions (id: its public id)
//   POST   /api/admin/prune         samples older than the raw retention, now
import { createHash, timingSafeEqual } from "node:crypto";
import express, { type RequestHandler, type Router } from "express";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { Store } from "../store/store.js";
import { sendError } from "./http-error.js";

const DAY_MS = 86_400_000;

export interface AdminOptions {
  token: string;
  nowMs: () => number;
  rawDays: number;
  clients: ClientDirectory;
  /** Per-address budget: wrong guesses cost the guesser time. */
  budget: RequestHandler;
  log: (line: string) => void;
}

/** Equal-length digests, so neither the comparison nor its length leaks how much of a guess was right. */
function tokenMatches(given: string, token: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}

function bearer(header: string | undefined): string {
  const m = /^Bearer ([\x21-\x7e]+)$/.exec(header ?? "");
  return m?.[1] ?? "";
}

export function adminRouter(store: Store, o: AdminOptions): Router {
  const router = express.Router();
  const only =
    (method: string): RequestHandler =>
    (req, res, next) => {
      if (req.method === method) return next();
      res.set("Allow", method);
      sendError(res, 405, "METHOD_NOT_ALLOWED", `this admin path answers ${method} only`);
    };
  const authorized: RequestHandler = (req, res, next) => {
    if (tokenMatches(bearer(req.headers.authorization), o.token)) return next();
    res.set("WWW-Authenticate", 'Bearer realm="tailprobe admin"');
    sendError(res, 401, "UNAUTHORIZED", "the admin API needs Authorization: Bearer <the --admin-token>");
  };

  router.all("/api/admin/clients/:id", only("DELETE"), o.budget, authorized, async (req, res, next) => {
    try {
      const publicId = String(req.params.id);
      const clientId = o.clients.clientIdOf(publicId);
      if (clientId === undefined) return sendError(res, 404, "NO_SUCH_CLIENT", "no client with that public id");
      const deleted = await store.deleteClient(clientId);
      o.clients.remove(clientId);
      o.log(`tailprobe: admin deleted client ${publicId}: ${deleted.samples} samples, ${deleted.sessions} sessions`);
      res.set("Cache-Control", "no-store").json({ deleted });
    } catch (err) {
      next(err);
    }
  });
  router.all("/api/admin/prune", only("POST"), o.budget, authorized, async (_req, res, next) => {
    try {
      const beforeMs = o.nowMs() - o.rawDays * DAY_MS;
      // Retention's own pass: raw samples past --raw-days, rollups past --rollup-days.
      const rows = await store.pruneNow();
      o.log(
        `tailprobe: admin pruned ${rows} rows (raw samples older than ${o.rawDays} days, rollups past their retention)`,
      );
      res.set("Cache-Control", "no-store").json({ deleted: { rows }, beforeMs });
    } catch (err) {
      next(err);
    }
  });
  return router;
}
