// A receiver per --notify and --alertmanager value: the payload its URL form
// asks for (receiver-url.ts), POSTed under a timeout.
import type { Announced } from "../book.js";
import { sendTransition } from "./alertmanager.js";
import type { Receiver } from "./dispatcher.js";
import { ntfyMessage, slackMessage, webhookPayload } from "./payloads.js";
import { postJson } from "./post.js";
import type { ReceiverSpec } from "./receiver-url.js";

/** A receiver that has not answered within this long (ms) failed; the message is retried. */
export const SEND_TIMEOUT_MS_DEFAULT = 10_000;

export interface ReceiverContext {
  /** This server's base URL (the webhook payload's externalURL). */
  externalUrl: () => string;
  nowMs: () => number;
  timeoutMs: number;
  resendMs: number;
  /** Aborted when the server stops: a POST in flight ends then. */
  stopSignal?: AbortSignal;
}

export function makeReceiver(spec: ReceiverSpec, ctx: ReceiverContext): Receiver {
  const post = (body: unknown) =>
    postJson(spec.url, body, { timeoutMs: ctx.timeoutMs, authorization: spec.authorization, signal: ctx.stopSignal });
  const send: (t: Announced) => Promise<void> = (() => {
    switch (spec.kind) {
      case "webhook":
        return (t: Announced) => post(webhookPayload(t, ctx.externalUrl()));
      case "ntfy":
        return (t: Announced) => post(ntfyMessage(t, spec.topic!));
      case "slack":
        return (t: Announced) => post(slackMessage(t));
      case "alertmanager":
        return (t: Announced) => sendTransition(spec, t, ctx.nowMs(), ctx.resendMs, ctx.timeoutMs, ctx.stopSignal);
    }
  })();
  return { spec, send };
}
