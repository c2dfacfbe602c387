// Why a sample failed or was skipped: one closed vocabulary, so a reason is
// data a query can group by rather than text to parse (librespeed's "Fail"
// strings are the counter-example). Each value is documented in docs/api.md.
import { z } from "../zod.js";

/**
 * Every reason a sample may carry, page probes and server baselines alike.
 * Adding a value is a protocol change: add it here, in docs/api.md, and where
 * it is produced; a server that does not know it refuses the sample.
 */
export const SAMPLE_REASONS = [
  // skipped: the tick was due, nothing was sent
  "frozen",
  "asleep",
  "outstanding-cap",
  "ping-capacity",
  // error: the page could not send, or the answer never came
  "mixed-content",
  "page-closed",
  "network",
  "no-callback",
  "http-429",
  "http-4xx",
  "http-5xx",
  "http-other",
  "ws-connecting",
  "ws-closed",
  "ws-connect-timeout",
  "ws-stale",
  "ws-send-failed",
  // server baselines
  "late-reply",
  "icmp-unreachable",
  "icmp-ttl-exceeded",
  "icmp-error",
  "ping-unavailable",
  "ss-busy",
  "ss-failed",
  "no-tcp-info",
] as const;
export type SampleReason = (typeof SAMPLE_REASONS)[number];

/** A reason outside the vocabulary is refused with this message after its path ("samples.3.reason: …"). */
/** What a refused sample's error says of a reason outside the vocabulary. */
export const REASON_UNKNOWN_ERROR = "not a reason tailprobe knows (see SAMPLE_REASONS in docs/api.md)";

export const sampleReasonSchema = z.enum(SAMPLE_REASONS, { error: REASON_UNKNOWN_ERROR });

const KNOWN: ReadonlySet<string> = new Set(SAMPLE_REASONS);

export function isSampleReason(text: string): text is SampleReason {
  return KNOWN.has(text);
}

/** The reason an XMLHttpRequest answered with a status other than 200 records. */
export function httpStatusReason(status: number): SampleReason {
  if (status === 429) return "http-429";
  if (status >= 400 && status < 500) return "http-4xx";
  if (status >= 500 && status < 600) return "http-5xx";
  return "http-other";
}

/** The reason an ICMP error line from ping ("From … Destination Host Unreachable") records. */
export function icmpReason(message: string): SampleReason {
  if (/unreachable/i.test(message)) return "icmp-unreachable";
  if (/time to live exceeded/i.test(message)) return "icmp-ttl-exceeded";
  return "icmp-error";
}

/**
 * The nearest value of the vocabulary for a free-text reason written before
 * it existed (tailprobe ≤ 0.1 pages: "http-503", "ping: Network is
 * unreachable", best-of-two's "ws:ws-closed jsonp:timeout" and
 * "other:network"). Rows an older page left in IndexedDB and baselines from a
 * peer running an older tailprobe go through it (upgradeReason), so they are
 * not refused; undefined drops a reason that maps to nothing (the outcome
 * still says how the sample ended). Databases keep such old text as it was
 * stored, and queries and exports read it back verbatim.
 */
export function legacyReason(text: string): SampleReason | undefined {
  if (isSampleReason(text)) return text;
  const http = /^http-(\d{1,3})\b/.exec(text);
  if (http) return httpStatusReason(Number(http[1]));
  if (text.startsWith("ping: ")) return "ping-unavailable";
  if (text.startsWith("other:")) return legacyReason(text.slice("other:".length));
  const race = /^ws:(\S+) jsonp:(\S+)$/.exec(text);
  if (race) return legacyReason(race[1]!) ?? legacyReason(race[2]!);
  if (/unreachable|time to live exceeded/i.test(text)) return icmpReason(text);
  return undefined;
}

/** The record with its reason, if it is free text from before the vocabulary, replaced by legacyReason's (or removed). */
export function upgradeReason<T extends object>(record: T): T {
  const text = (record as { reason?: unknown }).reason;
  if (typeof text !== "string" || isSampleReason(text)) return record;
  const { reason: _old, ...rest } = record as T & { reason: string };
  const known = legacyReason(text);
  return (known === undefined ? rest : { ...rest, reason: known }) as T;
}
