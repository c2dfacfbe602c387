// Prometheus Alertmanager's v2 API, as Prometheus itself uses it: every
// firing alert is POSTed to /api/v2/alerts when it starts and again every
// RESEND_MS while it fires, with an endsAt a few resends ahead, so that
// Alertmanager resolves it by itself if this server goes away; a resolved
// alert is POSTed with its real endsAt (and re-sent for RESOLVED_KEEP_MS).
// Alertmanager then groups, silences, inhibits and routes it.
import { rfc3339, type Alert } from "../alert.js";
import type { Announced } from "../book.js";
import { postJson } from "./post.js";
import type { ReceiverSpec } from "./receiver-url.js";

/** How often firing alerts are re-posted (ms): Prometheus' --rules.alert.resend-delay default. */
export const RESEND_MS_DEFAULT = 60_000;
/** A firing alert's endsAt is this many resends ahead, as Prometheus sets it. */
const RESENDS_AHEAD = 4;

/** An alert as POST /api/v2/alerts takes it (postableAlert). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
}

export function postableAlert(a: Alert, nowMs: number, resendMs: number): PostableAlert {
  return {
    labels: { ...a.labels },
    annotations: { ...a.annotations },
    startsAt: rfc3339(a.startsAtMs),
    endsAt: rfc3339(a.endsAtMs ?? nowMs + RESENDS_AHEAD * resendMs),
    ...(a.generatorUrl !== "" ? { generatorURL: a.generatorUrl } : {}),
  };
}

export const alertsUrl = (spec: ReceiverSpec) => `${spec.url.replace(/\/+$/, "")}/api/v2/alerts`;

export function postAlerts(
  spec: ReceiverSpec,
  alerts: PostableAlert[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  return postJson(alertsUrl(spec), alerts, { timeoutMs, authorization: spec.authorization, signal });
}

/** The message of one transition: the alert alone, at once (the resend loop repeats it). */
export function sendTransition(
  spec: ReceiverSpec,
  t: Announced,
  nowMs: number,
  resendMs: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  return postAlerts(spec, [postableAlert(t.alert, nowMs, resendMs)], timeoutMs, signal);
}

/** Re-posts every active alert each resendMs; returns the stop. A failed round is logged once until one succeeds. */
export function startResend(
  spec: ReceiverSpec,
  active: () => Alert[],
  o: { nowMs: () => number; resendMs: number; timeoutMs: number; log: (line: string) => void; signal?: AbortSignal },
): () => void {
  let failing = false;
  let busy = false;
  const round = async () => {
    const alerts = active();
    if (alerts.length === 0 || busy) return;
    busy = true;
    try {
      await postAlerts(
        spec,
        alerts.map((a) => postableAlert(a, o.nowMs(), o.resendMs)),
        o.timeoutMs,
        o.signal,
      );
      if (failing) o.log(`alerts: ${spec.display} reachable again`);
      failing = false;
    } catch (err) {
      if (!failing) o.log(`alerts: ${spec.display} re-post failed (${(err as Error).message}); trying every round`);
      failing = true;
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void round(), o.resendMs);
  timer.unref();
  return () => clearInterval(timer);
}
