// The URL forms of --notify and --alertmanager: which payload a receiver
// gets is told by its URL, so one repeatable flag covers every kind.
//   ntfy://[user:pass@]host[:port]/topic        ntfy over HTTPS (ntfy+http:// for a local ntfy on plain HTTP)
//   https://ntfy.sh/topic                        the public ntfy server
//   https://hooks.slack.com/services/…           a Slack incoming webhook
//   slack+https://host/hooks/…                   a Slack-compatible incoming webhook (Mattermost, Rocket.Chat; slack+http:// too)
//   any other http:// or https:// URL            Alertmanager's webhook payload (version 4)
// Credentials in the URL become an Authorization: Basic header (ntfy takes an
// access token as the password with an empty user) and are never logged or stored.
import { createHash } from "node:crypto";
import { fail, ok, type Result } from "../../../shared/result.js";

export type ReceiverKind = "webhook" | "ntfy" | "slack" | "alertmanager";

export interface ReceiverSpec {
  kind: ReceiverKind;
  /** Where to POST (ntfy: the server's root, the topic goes in the body; alertmanager: the base URL), without credentials. */
  url: string;
  /** ntfy only: the topic. */
  topic?: string | undefined;
  /** "Basic …" from the URL's user and password, if it had any. */
  authorization?: string | undefined;
  /** For log lines: no credentials, and no path for Slack, whose path is the secret. */
  display: string;
  /** Stable across restarts, names the receiver in the stored alert state; a hash, so no secret path is stored. */
  key: string;
}

const NTFY_PUBLIC_HOST = "ntfy.sh";
const SLACK_HOST = "hooks.slack.com";

function keyOf(kind: ReceiverKind, url: string, topic = ""): string {
  return `${kind}:${createHash("sha256").update(`${url} ${topic}`).digest("hex").slice(0, 16)}`;
}

function basicAuth(u: URL): string | undefined {
  if (u.username === "" && u.password === "") return undefined;
  const creds = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  return `Basic ${Buffer.from(creds).toString("base64")}`;
}

function parseUrl(flag: string, raw: string): Result<URL> {
  try {
    return ok(new URL(raw));
  } catch {
    return fail(`${flag} must be a URL (got '${raw}')`);
  }
}

function spec(kind: ReceiverKind, u: URL, display: string, topic?: string): ReceiverSpec {
  const authorization = basicAuth(u);
  u.username = "";
  u.password = "";
  const url = u.toString();
  return { kind, url, topic, authorization, display, key: keyOf(kind, url, topic) };
}

/** A --notify value: ntfy, Slack or an Alertmanager-format webhook, told apart by the URL. */
export function parseNotifyUrl(raw: string): Result<ReceiverSpec> {
  const parsed = parseUrl("--notify", raw);
  if (!parsed.ok) return parsed;
  let u = parsed.value;
  const scheme = u.protocol.slice(0, -1);
  const rebase = (to: "http" | "https") => new URL(`${to}:${raw.slice(raw.indexOf(":") + 1)}`);
  if (scheme === "ntfy" || scheme === "ntfy+http" || scheme === "ntfy+https") {
    u = rebase(scheme === "ntfy+http" ? "http" : "https");
    return ntfy(u, raw);
  }
  if (scheme === "slack+http" || scheme === "slack+https") {
    u = rebase(scheme === "slack+http" ? "http" : "https");
    return ok(spec("slack", u, `slack ${u.origin}/…`));
  }
  if (scheme !== "http" && scheme !== "https")
    return fail(`--notify must be an http(s)://, ntfy:// or slack+https:// URL (got '${raw}')`);
  if (u.hostname === SLACK_HOST) return ok(spec("slack", u, `slack ${u.origin}/…`));
  if (u.hostname === NTFY_PUBLIC_HOST) return ntfy(u, raw);
  const display = `webhook ${u.origin}${u.pathname}`;
  return ok(spec("webhook", u, display));
}

function ntfy(u: URL, raw: string): Result<ReceiverSpec> {
  const topic = u.pathname.replace(/^\/+|\/+$/g, "");
  if (!/^[-_A-Za-z0-9]{1,64}$/.test(topic))
    return fail(`--notify ntfy URL must name one topic of 1-64 letters, digits, '-' or '_' (got '${raw}')`);
  u.pathname = "/";
  u.search = "";
  return ok(spec("ntfy", u, `ntfy ${u.origin}/${topic}`, topic));
}

/** The --alertmanager value: the base URL of an Alertmanager (its v2 API is under /api/v2/). */
export function parseAlertmanagerUrl(raw: string): Result<ReceiverSpec> {
  const parsed = parseUrl("--alertmanager", raw);
  if (!parsed.ok) return parsed;
  const u = parsed.value;
  if (u.protocol !== "http:" && u.protocol !== "https:")
    return fail(`--alertmanager must be an http:// or https:// URL (got '${raw}')`);
  if (u.search !== "" || u.hash !== "") return fail(`--alertmanager must be a base URL without query (got '${raw}')`);
  u.pathname = u.pathname.replace(/\/+$/, "");
  return ok(spec("alertmanager", u, `alertmanager ${u.origin}${u.pathname}`));
}
