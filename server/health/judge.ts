// Where the fault lies: a target's state and verdict from every current
// source's view of it (its clients, this server's own probe of it) and the
// pings towards the clients in trouble. Pure; the rules are docs/alerts.md's
// "Where the fault lies", in the order they are tried:
//   - every source sees it down → down; the server, when two or more
//     independent sources agree (clients, and this server's own probe);
//   - only this server's own probe fails while clients reach it → the
//     network between the servers;
//   - some clients fail or are slow while others (or the server's own probe)
//     are fine → those clients or their path; the network when ping to them
//     fails too;
//   - every source slow or failing in part → by the attribution rules (the
//     server's own time, a baseline spike, HTTP alone, the pages' late ticks).
import type { Verdict } from "../../shared/contract/incidents.js";
import type { HealthState } from "./feed.js";
import type { SourceView } from "./view.js";

export interface PingView {
  judged: number;
  bad: number;
  /** e.g. "ping from A: 4 of 5 failed or slow". */
  text: string;
}

export interface JudgeInput {
  target: string;
  /** This server's name: its own probe is "A's own probe". */
  observer: string;
  /** Current views, clients' and the own probe's (at most one). */
  views: readonly SourceView[];
  /** Clients' views that are current but judged too little to have a state. */
  silent: number;
  /** Pings towards a client, judged, when there were any. */
  pings(clientId: string): PingView | null;
  /** How a source is named in sentences: a client by its public id. */
  name(view: SourceView): string;
}

export interface Judgement {
  target: string;
  state: HealthState;
  verdict: Verdict;
  /** The phrase after "B down: " / "B degraded: " up to " since …". */
  reason: string;
  /** Sources failing or slow. */
  affected: SourceView[];
  /** Every source with a view. */
  reporting: SourceView[];
  /** When the trouble began (the earliest affected source's first bad probe). */
  startT: number | null;
  /** When the target was last fine again for every source (the latest good-run start); null while any is bad. */
  recoveredT: number | null;
  methods: string[];
  /** Client ids of the affected clients. */
  clients: string[];
  evidence: string[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** Evidence lines an incident keeps: sources in trouble, then fine ones (a thousand pages would be a thousand lines). */
const EVIDENCE_AFFECTED_MAX = 20;
const EVIDENCE_FINE_MAX = 5;
const fmtMs = (ms: number) => (ms >= 10 ? ms.toFixed(0) : ms.toFixed(1));
const HTTP_METHODS = new Set(["xhr", "jsonp", "peerhttp"]);

function describe(v: SourceView, name: string): string {
  const parts: string[] = [];
  if (v.failed > 0) parts.push(`${v.failed} of ${v.judged} probes failed (${v.failures.join(", ")})`);
  if (v.slow > 0)
    parts.push(
      `${v.slow} of ${v.timed} slow, median ${v.medianMs === null ? "?" : fmtMs(v.medianMs)} ms against a usual ${v.typicalMs === null ? "?" : fmtMs(v.typicalMs)} ms`,
    );
  if (parts.length === 0) parts.push(`${v.judged} probes fine`);
  const cause = v.causeText === null ? "" : `; ${v.causeText}`;
  return `${name}: ${v.state}: ${parts.join("; ")}${cause}`;
}

/** "failing" or "slow (median 312 ms against a usual 1.2 ms)" for one view. */
function trouble(v: SourceView): string {
  if (v.state === "down") return "failing";
  if (v.failed > 0 && v.failed >= v.slow) return `failing in part (${v.failed} of ${v.judged} probes)`;
  return `slow (median ${v.medianMs === null ? "?" : fmtMs(v.medianMs)} ms against a usual ${v.typicalMs === null ? "?" : fmtMs(v.typicalMs)} ms)`;
}

function verdictOfCauses(affected: readonly SourceView[], peerBad: boolean): Verdict {
  const counts = new Map<string, number>();
  for (const v of affected) if (v.cause !== null) counts.set(v.cause, (counts.get(v.cause) ?? 0) + 1);
  const [top] = [...counts].sort((a, b) => b[1] - a[1]);
  switch (top?.[0]) {
    case "server":
      return "server";
    case "network":
      return "network";
    case "http":
      return "http";
    case "client":
      return affected.length === 1 ? "client" : "browser";
    default:
      return peerBad ? "server" : "unknown";
  }
}

export function judge(input: JudgeInput): Judgement {
  const views = input.views;
  const own = `${input.observer}'s own probe`;
  const peer = views.find((v) => v.kind === "peer") ?? null;
  const clients = views.filter((v) => v.kind === "client");
  const affected = views.filter((v) => v.state !== "up");
  const badClients = clients.filter((v) => v.state !== "up");
  const goodClients = clients.filter((v) => v.state === "up");
  // The sources in trouble first, each in a line; the fine ones after them, a few by name and the rest counted.
  const troubled = views.filter((v) => v.state !== "up");
  const fine = views.filter((v) => v.state === "up");
  const evidence = [
    ...troubled.slice(0, EVIDENCE_AFFECTED_MAX).map((v) => describe(v, input.name(v))),
    ...fine.slice(0, EVIDENCE_FINE_MAX).map((v) => describe(v, input.name(v))),
  ];
  const untold = Math.max(0, troubled.length - EVIDENCE_AFFECTED_MAX) + Math.max(0, fine.length - EVIDENCE_FINE_MAX);
  if (untold > 0) evidence.push(`and ${plural(untold, "more source")}, not listed`);
  if (input.silent > 0) evidence.push(`${plural(input.silent, "client")} reporting too few probes to judge`);
  const methods = [...new Set(affected.flatMap((v) => v.methods))].sort();
  const starts = affected.flatMap((v) => (v.badSinceT === null ? [] : [v.badSinceT]));
  const goods = views.flatMap((v) => (v.goodSinceT === null ? [] : [v.goodSinceT]));
  const base = {
    target: input.target,
    affected,
    reporting: [...views],
    startT: starts.length === 0 ? null : Math.min(...starts),
    recoveredT: affected.length === 0 && goods.length > 0 ? Math.max(...goods) : null,
    methods,
    clients: badClients.map((v) => v.id),
    evidence,
  };
  if (views.length === 0)
    return { ...base, state: "unknown", verdict: "unknown", reason: "no current probes", recoveredT: null };
  if (affected.length === 0)
    return { ...base, state: "up", verdict: "unknown", reason: `fine from ${plural(views.length, "source")}` };

  const fromClients = (n: number) => `${n} of ${plural(clients.length, "client")}`;
  const andOwn = (v: SourceView | null) => (v === null ? "" : ` and from ${own}`);

  // Every source sees it down.
  if (affected.length === views.length && affected.every((v) => v.state === "down")) {
    const reason =
      clients.length === 0
        ? `failing from ${own} (no page reports it)`
        : `failing from ${fromClients(badClients.length)}${andOwn(peer)}`;
    return { ...base, state: "down", verdict: views.length >= 2 ? "server" : "unknown", reason };
  }

  // Only the server's own probe fails, the clients reach it: the path between the servers.
  if (peer !== null && peer.state !== "up" && badClients.length === 0) {
    return {
      ...base,
      state: "degraded",
      verdict: "network",
      reason: `${own} is ${trouble(peer)} while ${fromClients(goodClients.length)} reach it: the path between the servers`,
    };
  }

  // Some clients in trouble while others, or the server's own probe, are fine: those clients or their path.
  const peerFine = peer?.state === "up";
  const othersFine = goodClients.length > 0 || peerFine;
  const minority = badClients.length < clients.length / 2 + 0.5;
  if (badClients.length > 0 && othersFine && (peerFine || (peer === null && minority))) {
    const pings = badClients.map((v) => input.pings(v.id));
    const pingBad = pings.filter((p) => p !== null && p.bad / p.judged >= 0.5);
    for (const p of pings) if (p !== null) evidence.push(p.text);
    const names = badClients.map((v) => input.name(v)).join(", ");
    const fine = [goodClients.length > 0 ? plural(goodClients.length, "other client") : "", peerFine ? own : ""]
      .filter((x) => x !== "")
      .join(" and ");
    const fineCount = goodClients.length + (peerFine ? 1 : 0);
    const onlyHttp = badClients.every((v) => v.methods.every((m) => HTTP_METHODS.has(m)));
    const network = pingBad.length > 0 && pingBad.length === pings.filter((p) => p !== null).length;
    const [first] = badClients;
    const why = network
      ? ", and ping to it fails too: the network"
      : first!.causeText !== null && badClients.length === 1
        ? `; ${first!.causeText}`
        : onlyHttp
          ? ", HTTP probes only"
          : "";
    return {
      ...base,
      state: "degraded",
      verdict: network ? "network" : "client",
      reason: `for ${names}: ${trouble(first!)}${why} while ${fine} ${fineCount === 1 ? "is" : "are"} fine`,
    };
  }

  // Most or all sources in trouble, not all of them down.
  const peerBad = peer !== null && peer.state !== "up";
  const failing = affected.filter((v) => v.failed > 0 && v.failed >= v.slow);
  const onlyHttp = affected.every((v) => v.methods.every((m) => HTTP_METHODS.has(m)));
  if (failing.length * 2 >= affected.length) {
    const verdict: Verdict = onlyHttp ? "http" : affected.length >= 2 ? "server" : "unknown";
    const what = onlyHttp ? "HTTP probes failing" : "failing in part";
    return {
      ...base,
      state: "degraded",
      verdict,
      reason: `${what} from ${fromClients(badClients.length)}${andOwn(peerBad ? peer : null)}${onlyHttp ? " while the WebSocket is fine" : ""}`,
    };
  }
  const verdict = verdictOfCauses(affected, peerBad);
  const [slowest] = [...affected].sort((a, b) => (b.medianMs ?? 0) - (a.medianMs ?? 0));
  const cause = slowest?.causeText === null || slowest === undefined ? "" : `; ${slowest.causeText}`;
  return {
    ...base,
    state: "degraded",
    verdict,
    reason: `slow from ${fromClients(badClients.length)}${andOwn(peerBad ? peer : null)}${slowest === undefined ? "" : ` (${trouble(slowest)})`}${cause}`,
  };
}
