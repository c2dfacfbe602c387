// GET /metrics in the Prometheus text exposition format (version 0.0.4), so
// Grafana users chart tailprobe beside their other systems:
//   tailprobe_latency_seconds{method, server}  histogram of ok probe and baseline latencies
//   tailprobe_samples_total{method, server, outcome}  counter of samples by outcome
// Both cover every sample ever stored (running totals kept with the rollups,
// metrics-source.ts; a database upgraded to schema 4 counts from the day
// rollups it then held): retention does not lower them, so they only grow, as
// Prometheus expects of a counter; deleting a client resets them lower.
import express, { type Router } from "express";
import type { Queries } from "./queries.js";
import { LATENCY_BUCKETS_S, metricsSnapshot, type MetricsSnapshot } from "./metrics-source.js";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Label values escape backslash, double quote and line feed. */
function label(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export function formatMetrics(m: MetricsSnapshot): string {
  const out: string[] = [];
  out.push("# HELP tailprobe_latency_seconds Round-trip latency of ok samples per method and server.");
  out.push("# TYPE tailprobe_latency_seconds histogram");
  for (const s of m.latency) {
    const l = `method="${label(s.method)}",server="${label(s.target)}"`;
    LATENCY_BUCKETS_S.forEach((le, i) =>
      out.push(`tailprobe_latency_seconds_bucket{${l},le="${le}"} ${s.bucketCounts[i]}`),
    );
    out.push(`tailprobe_latency_seconds_bucket{${l},le="+Inf"} ${s.count}`);
    out.push(`tailprobe_latency_seconds_sum{${l}} ${s.sumS}`);
    out.push(`tailprobe_latency_seconds_count{${l}} ${s.count}`);
  }
  out.push(
    "# HELP tailprobe_samples_total Samples stored per method, server and outcome (ok, timeout, error, skipped).",
  );
  out.push("# TYPE tailprobe_samples_total counter");
  for (const o of m.outcomes)
    out.push(
      `tailprobe_samples_total{method="${label(o.method)}",server="${label(o.target)}",outcome="${label(o.outcome)}"} ${o.count}`,
    );
  return `${out.join("\n")}\n`;
}

export function metricsRouter(store: Pick<Queries, "seriesTotals">): Router {
  const router = express.Router();
  router.get("/metrics", (_req, res, next) => {
    metricsSnapshot(store).then(
      (m) =>
        res
          .status(200)
          .set({ "Content-Type": METRICS_CONTENT_TYPE, "Cache-Control": "no-store" })
          .send(formatMetrics(m)),
      next,
    );
  });
  return router;
}
