// The bodies each kind of receiver reads natively, for one alert's firing or
// resolved message.
import { rfc3339, ZERO_TIME, type Alert, type Labels } from "../alert.js";
import type { Announced } from "../book.js";

/** Alertmanager's webhook receiver's name in the payload (a receiver written for Alertmanager may log it). */
export const RECEIVER_NAME = "tailprobe";

/** One alert as Alertmanager's webhook payload lists it. */
export interface WebhookAlert {
  status: "firing" | "resolved";
  labels: Labels;
  annotations: Labels;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

/** Alertmanager's webhook payload, version 4 (what its webhook_config POSTs). */
export interface WebhookPayload {
  version: "4";
  groupKey: string;
  truncatedAlerts: number;
  status: "firing" | "resolved";
  receiver: string;
  groupLabels: Labels;
  commonLabels: Labels;
  commonAnnotations: Labels;
  externalURL: string;
  alerts: WebhookAlert[];
}

const quoted = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(",");

export function webhookAlert(t: Announced): WebhookAlert {
  return {
    status: t.type,
    labels: t.alert.labels,
    annotations: t.alert.annotations,
    startsAt: rfc3339(t.alert.startsAtMs),
    endsAt: t.alert.endsAtMs === null ? ZERO_TIME : rfc3339(t.alert.endsAtMs),
    generatorURL: t.alert.generatorUrl,
    fingerprint: t.fingerprint,
  };
}

/**
 * One message per transition, so the group is the alert itself: grouped by
 * alertname and target as Alertmanager would with `group_by: [alertname, target]`.
 */
export function webhookPayload(t: Announced, externalUrl: string): WebhookPayload {
  const groupLabels: Record<string, string> = { alertname: t.alert.labels.alertname ?? "" };
  if (t.alert.labels.target !== undefined) groupLabels.target = t.alert.labels.target;
  return {
    version: "4",
    groupKey: `{}:{${quoted(groupLabels)}}`,
    truncatedAlerts: 0,
    status: t.type,
    receiver: RECEIVER_NAME,
    groupLabels,
    commonLabels: t.alert.labels,
    commonAnnotations: t.alert.annotations,
    externalURL: externalUrl,
    alerts: [webhookAlert(t)],
  };
}

/** A one-line title: "[FIRING] TargetDown B". */
export function title(t: Announced): string {
  const l = t.alert.labels;
  const what = [l.alertname, l.target, l.method, l.client].filter((x) => x !== undefined && x !== "").join(" ");
  return `[${t.type.toUpperCase()}] ${what}`;
}

/** The text under the title: summary, description, and when. */
function body(a: Alert, type: Announced["type"]): string {
  const when =
    type === "firing"
      ? `since ${rfc3339(a.startsAtMs)}`
      : `from ${rfc3339(a.startsAtMs)} to ${rfc3339(a.endsAtMs ?? a.startsAtMs)}`;
  return [a.annotations.summary, a.annotations.description, when].filter((x) => x !== undefined && x !== "").join("\n");
}

/** ntfy's JSON publishing (POST to the server's root with the topic in the body). */
export interface NtfyMessage {
  topic: string;
  title: string;
  message: string;
  tags: string[];
  /** 1-5; 4 ("high") for a firing alert, 3 ("default") for a resolved one. */
  priority: number;
  click?: string;
}

const NTFY_PRIORITY_FIRING = 4;
const NTFY_PRIORITY_RESOLVED = 3;

export function ntfyMessage(t: Announced, topic: string): NtfyMessage {
  return {
    topic,
    title: title(t),
    message: body(t.alert, t.type),
    // ntfy shows these tag names as emoji.
    tags: [t.type === "firing" ? "rotating_light" : "white_check_mark"],
    priority: t.type === "firing" ? NTFY_PRIORITY_FIRING : NTFY_PRIORITY_RESOLVED,
    ...(t.alert.generatorUrl !== "" ? { click: t.alert.generatorUrl } : {}),
  };
}

/** Slack's mrkdwn escapes these three, and only these. */
const slackEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A Slack incoming webhook's message: its `text`, in mrkdwn. */
export function slackMessage(t: Announced): { text: string } {
  const icon = t.type === "firing" ? ":rotating_light:" : ":white_check_mark:";
  const link = t.alert.generatorUrl !== "" ? `\n<${t.alert.generatorUrl}|open the histogram at that time>` : "";
  return { text: `${icon} *${slackEscape(title(t))}*\n${slackEscape(body(t.alert, t.type))}${link}` };
}
