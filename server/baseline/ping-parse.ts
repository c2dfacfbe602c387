// One line of `ping -n -O -D` (iputils) output, parsed into what it says.
// ping's output is input from outside the process: every line is matched
// against a known shape and anything else is reported as unrecognised.
import type { BaselineStatusCode } from "../../shared/contract/index.js";
import { fail, ok, type Result } from "../../shared/result.js";

export type PingLine =
  /** An echo reply. `atEpochMs` is when ping printed it (-D), `rttMs` its round trip. */
  | { kind: "reply"; seq: number; atEpochMs: number | undefined; rttMs: number; from: string; dup: boolean }
  /** -O: the previous request went unanswered when the next one was due. */
  | { kind: "no-answer"; seq: number; atEpochMs: number | undefined }
  /** An ICMP error about one request, e.g. "Destination Host Unreachable". */
  | { kind: "icmp-error"; seq: number; atEpochMs: number | undefined; from: string; message: string }
  /** ping complaining about itself ("ping: connect: Network is unreachable"); usually fatal. */
  | { kind: "diagnostic"; message: string }
  /** Banner, statistics and blank lines: no measurement in them. */
  | { kind: "chatter" };

/** -D prefixes every per-packet line with the wall clock in seconds: "[1795440035.807470] ". */
const STAMP = String.raw`^(?:\[(\d{9,11}(?:\.\d{1,9})?)\] )?`;
const REPLY = new RegExp(
  `${STAMP}\\d+ bytes from (\\S+?)(?: \\([^)]*\\))?: icmp_seq=(\\d{1,5}) (?:ttl|hlim)=\\d+ time[=<](\\d+(?:\\.\\d+)?) ms(.*)$`,
);
const NO_ANSWER = new RegExp(`${STAMP}no answer yet for icmp_seq=(\\d{1,5})$`);
const ICMP_ERROR = new RegExp(`${STAMP}From (\\S+?)(?: \\([^)]*\\))? icmp_seq=(\\d{1,5}) (.+)$`);
const DIAGNOSTIC = /^ping: (.+)$/;
const CHATTER = [
  /^$/,
  /^PING /,
  /^WARNING: /,
  /^--- .* ping statistics ---$/,
  /^\d+ packets transmitted/,
  /^rtt min\/avg\/max\/mdev = /,
  /^pipe \d+$/,
];

function stampMs(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Math.round(Number(text) * 1000);
}

export function parsePingLine(raw: string): Result<PingLine> {
  const line = raw.replace(/\r$/, "").trimEnd();
  let m = REPLY.exec(line);
  if (m) {
    return ok({
      kind: "reply",
      atEpochMs: stampMs(m[1]),
      from: m[2]!,
      seq: Number(m[3]),
      rttMs: Number(m[4]),
      dup: m[5]!.includes("(DUP!)"),
    });
  }
  m = NO_ANSWER.exec(line);
  if (m) return ok({ kind: "no-answer", atEpochMs: stampMs(m[1]), seq: Number(m[2]) });
  m = ICMP_ERROR.exec(line);
  if (m) return ok({ kind: "icmp-error", atEpochMs: stampMs(m[1]), from: m[2]!, seq: Number(m[3]), message: m[4]! });
  m = DIAGNOSTIC.exec(line);
  if (m) return ok({ kind: "diagnostic", message: m[1]! });
  if (CHATTER.some((re) => re.test(line))) return ok({ kind: "chatter" });
  return fail(`unrecognised ping output: ${JSON.stringify(line.slice(0, 120))}`);
}

/** Why ping cannot run here at all, as opposed to why one address cannot be pinged. */
export type PingFailureScope = "host" | "address";

export interface PingFailure {
  scope: PingFailureScope;
  /** What /api/config says for a host-wide failure (absent for one address's). */
  code?: BaselineStatusCode;
  /** One line for a person: what went wrong and how to fix it. */
  reason: string;
}

export const PING_FIX_INSTALL = "apt-get install iputils-ping";
export const PING_FIX_PERMISSION =
  'allow unprivileged ICMP with sysctl -w net.ipv4.ping_group_range="0 2147483647" (or setcap cap_net_raw+p "$(command -v ping)")';

/**
 * Classifies what a ping process said before it exited. Permission and
 * missing-feature problems concern the whole host; anything else (no route,
 * bad address) concerns the one address.
 */
export function classifyPingFailure(diagnostics: string[]): PingFailure {
  const text = diagnostics.join("; ");
  const missing = diagnostics.find((d) => / not found: /.test(d));
  if (missing !== undefined) return { scope: "host", code: "not-installed", reason: missing };
  if (/Operation not permitted|Permission denied|missing cap_net_raw/i.test(text))
    return { scope: "host", code: "not-permitted", reason: `not permitted to send ICMP: ${PING_FIX_PERMISSION}` };
  if (/invalid option|unknown option|usage:/i.test(text))
    return {
      scope: "host",
      code: "unsupported",
      reason: `this ping lacks iputils' -O and -D options: ${PING_FIX_INSTALL}`,
    };
  const last = diagnostics.filter((d) => !/^socktype:/.test(d)).pop() ?? "ping exited";
  return { scope: "address", reason: last.replace(/^connect: /, "") };
}
