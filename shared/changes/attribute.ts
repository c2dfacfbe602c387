// Which part of the path moved at a change: the same statistic, over the
// same windows, on the baselines of the same server and client (ICMP ping,
// WebSocket ping frame, kernel TCP RTT and min RTT) and on the server's own
// handler time (Server-Timing, the WebSocket's served note). The words are
// shared/forensics/attribution.ts's, whose rules these follow at the scale of
// hours instead of one probe:
//   a baseline      moved itself: the network path (the server measures it);
//   server          its handler time moved by at least half the change;
//   network         a baseline to the same server moved by at least half;
//   http            XHR or JSONP moved while the WebSocket probe did not (or
//                   was not measured): HTTP or the browser;
//   client          a probe moved while nothing on the path did: the browser
//                   or the client's machine;
//   unexplained     no baseline or server time was measured to compare.
import { BASELINE_METHODS } from "../methods.js";
import type { Statistic } from "./detect.js";

export const CHANGE_VERDICTS = ["network", "server", "http", "client", "unexplained"] as const;
export type ChangeVerdict = (typeof CHANGE_VERDICTS)[number];

/** A part's statistic over the windows before and after (ms; null: not measured there). */
export interface PartMove {
  method: string;
  target: string;
  before: number | null;
  after: number | null;
}

export interface ChangeFacts {
  method: string;
  target: string;
  /** The client's label, or null for every client. */
  client: string | null;
  statistic: Statistic;
  /** The changed series' statistic before and after (ms). */
  before: number;
  after: number;
  /** When it shows (epoch ms). */
  t: number;
  /**
   * The series' own statistic over the windows its parts were measured on
   * (whole hours beside the change), which their moves are set against; when
   * not measured, before and after above.
   */
  reference?: { before: number | null; after: number | null };
  /** Baselines to the same server from the same client(s). */
  baselines: readonly PartMove[];
  /** The server's handler time for this method (null: the method reports none). */
  server: PartMove | null;
  /** The WebSocket probe to the same server, for XHR and JSONP. */
  ws: PartMove | null;
}

/** A part explains a change when it moved at least this share of it, the same way. */
export const PART_SHARE_MIN = 0.5;
/** Below this share of the change a part is "unchanged". */
export const UNCHANGED_SHARE_MAX = 0.25;

const LABELS: Record<string, string> = {
  xhr: "XHR",
  jsonp: "JSONP",
  ws: "WebSocket",
  best2: "best of two",
  ping: "ping",
  wsping: "WebSocket ping frame",
  tcprtt: "TCP RTT",
  tcpminrtt: "TCP min RTT",
};
export const partLabel = (method: string): string => LABELS[method] ?? method;
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Milliseconds as the seed's tables print them: 41, 160, 1.2, 0.31. */
export function fmtMs(ms: number): string {
  const a = Math.abs(ms);
  return a >= 10 ? ms.toFixed(0) : a >= 1 ? ms.toFixed(1) : ms.toFixed(2);
}

/** "14:03 UTC on 23 April" (the server does not know the reader's zone). */
export function fmtWhen(t: number): string {
  const d = new Date(t);
  const hh = String(d.getUTCHours()).padStart(2, "0");
  const mm = String(d.getUTCMinutes()).padStart(2, "0");
  return `${hh}:${mm} UTC on ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

const isBaseline = (m: string) => (BASELINE_METHODS as readonly string[]).includes(m) || m === "tcpminrtt";
const measured = (p: PartMove | null): p is PartMove & { before: number; after: number } =>
  p !== null && p.before !== null && p.after !== null;

/** The share of the change a part moved, the same way (negative: the other way). */
function shareOf(p: PartMove & { before: number; after: number }, delta: number): number {
  return delta === 0 ? 0 : (p.after - p.before) / delta;
}

function describe(name: string, p: PartMove & { before: number; after: number }, delta: number): string {
  const d = p.after - p.before;
  const share = shareOf(p, delta);
  if (share < UNCHANGED_SHARE_MAX) return `${name} unchanged (${fmtMs(p.before)} → ${fmtMs(p.after)} ms)`;
  const same = share >= 0.8 && share <= 1.25 ? "the same " : "";
  return `${name} ${d > 0 ? "rose" : "fell"} by ${same}${fmtMs(Math.abs(d))} ms (${fmtMs(p.before)} → ${fmtMs(p.after)} ms)`;
}

/** The verdict and one sentence of evidence for a change. */
export function attributeChange(f: ChangeFacts): { verdict: ChangeVerdict; evidence: string } {
  const who = f.client === null ? "" : ` (client ${f.client})`;
  const head = `${partLabel(f.method)} ${f.target}${who} ${f.statistic} ${fmtMs(f.before)} → ${fmtMs(f.after)} ms at ${fmtWhen(f.t)}`;
  const ref = f.reference;
  const delta =
    ref !== undefined && ref.before !== null && ref.after !== null ? ref.after - ref.before : f.after - f.before;
  if (isBaseline(f.method))
    return { verdict: "network", evidence: `${head}: the network path (a baseline the server measures)` };

  const facts: string[] = [];
  const baselines = f.baselines.filter(measured);
  for (const b of baselines) facts.push(describe(`${partLabel(b.method)} ${b.target}`, b, delta));
  const server = measured(f.server) ? f.server : null;
  facts.push(server === null ? "server time not measured" : describe("server time", server, delta));
  const ws = measured(f.ws) ? f.ws : null;
  if (ws !== null) facts.push(describe(`WebSocket ${ws.target}`, ws, delta));
  if (baselines.length === 0) facts.unshift(`no baseline to ${f.target} measured`);
  const say = (verdict: ChangeVerdict, why: string) => ({ verdict, evidence: `${head}; ${facts.join(", ")}: ${why}` });

  if (server !== null && shareOf(server, delta) >= PART_SHARE_MIN) return say("server", "the server");
  const moved = baselines.filter((b) => shareOf(b, delta) >= PART_SHARE_MIN);
  if (moved.length > 0) return say("network", "the network path");
  if (baselines.length === 0 && server === null) return say("unexplained", "nothing measured beside it to compare");
  if ((f.method === "xhr" || f.method === "jsonp") && (ws === null || shareOf(ws, delta) < PART_SHARE_MIN))
    return say("http", "HTTP or the browser");
  if (baselines.length === 0) return say("unexplained", "no baseline to tell the path from the browser");
  return say("client", "the browser or the client's machine");
}
