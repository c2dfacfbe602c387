// The stress test's API (docs/api.md): POST /api/stress, a page's report of a
// run (same origin only, under the ingest budget, as samples are), and GET
// /api/stress, the runs of a range with their phases side by side.
import express, { type Router } from "express";
import { parseWith, stressQuerySchema, stressReportSchema, type StressResponse } from "../../shared/contract/index.js";
import type { Budgets } from "../limits/budgets.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import { type StressQuerySource, stressAnswer } from "../query/stress-query.js";
import { Pace, SLICE_MS } from "../store/pace.js";
import type { ReportVerdict } from "../store/stress-runs.js";
import { sendError } from "./http-error.js";
import { answerQuery } from "./query-errors.js";
import type { TrustedProxies } from "../client-address.js";
import { sameOriginOnly } from "./same-origin.js";

/** A report of five phases, 120 s each, with every self probe: well under this. */
export const STRESS_REPORT_BYTES_MAX = 256 * 1024;

const REFUSED: Record<Exclude<ReportVerdict, "stored" | "kept">, [number, string, string]> = {
  // 409: the page retries; its samples (and with them its session) may not have reached the database yet.
  "session-unknown": [409, "SESSION_UNKNOWN", "no sample of this session is stored yet; report the run after them"],
  "session-not-yours": [409, "SESSION_CLIENT_MISMATCH", "sessionId belongs to another clientId"],
  "run-not-yours": [409, "RUN_NOT_YOURS", "this run was reported by another session"],
};

export interface StressRouteOptions {
  nowMs: () => number;
  /** Proxies whose X-Forwarded-Proto is believed (the same-origin check, as ingest's). */
  trustedProxies: TrustedProxies;
  admit: Budgets["ingest"];
  clients: ClientDirectory;
}

export function stressRouter(store: StressQuerySource, o: StressRouteOptions): Router {
  const router = express.Router();
  router.post(
    "/api/stress",
    sameOriginOnly(o.trustedProxies),
    o.admit,
    // application/json, or text/plain as sendBeacon's Blob may arrive.
    express.json({ limit: STRESS_REPORT_BYTES_MAX, type: ["application/json", "text/plain"] }),
    (req, res, next) => {
      const report = parseWith(stressReportSchema, req.body);
      if (!report.ok) return sendError(res, 400, "INVALID_REPORT", report.error);
      store.stressRuns.report(report.value).then((verdict) => {
        if (verdict === "stored" || verdict === "kept") {
          o.clients.add(report.value.clientId);
          return void res.set("Cache-Control", "no-store").json({ stored: true });
        }
        const [status, code, error] = REFUSED[verdict];
        sendError(res, status, code, error);
      }, next);
    },
  );
  router.get("/api/stress", (req, res, next) => {
    const q = parseWith(stressQuerySchema, req.query);
    if (!q.ok) return sendError(res, 400, "INVALID_QUERY", q.error);
    const fromMs = q.value.from ?? 0;
    const toMs = q.value.to ?? o.nowMs();
    if (fromMs > toMs) return sendError(res, 400, "INVALID_QUERY", "from must not be after to");
    // A public id nobody here has: no clientId matches "".
    const clientId = q.value.client === undefined ? undefined : (o.clients.clientIdOf(q.value.client) ?? "");
    answerQuery(
      res,
      next,
      (signal): Promise<StressResponse> =>
        stressAnswer(store, fromMs, toMs, clientId, (c) => o.clients.publicId(c), new Pace(SLICE_MS, signal)),
    );
  });
  return router;
}
