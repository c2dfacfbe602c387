// What the public status page says of each server: its state now (the
// health monitor's), uptime over 24 h, 7 days and 90 days and a day per bar
// with its p50 and p99 (from the rollups), and its incidents. Public: no
// client, label or address. Incidents about one client's own path (verdict
// client or browser, or the network towards named clients) are not the
// server's and are left out; so is the state they would give it.
import type { Incident } from "../../shared/contract/incidents.js";
import {
  STATUS_DAYS,
  type HealthState,
  type PublicIncident,
  type StatusDay,
  type StatusResponse,
  type StatusServer,
} from "../../shared/contract/status.js";
import { PEER_METHODS } from "../../shared/methods.js";
import type { HealthFeed } from "../health/feed.js";
import type { IncidentStore } from "../store/incidents.js";
import type { Queries } from "../query/queries.js";
import type { TargetBucket } from "../query/target-health.js";

export const DAY_MS = 86_400_000;
/** Incidents listed per server at most (newest first). */
export const STATUS_INCIDENTS_MAX = 50;
/** Incidents read for the page at most. */
const INCIDENTS_READ_MAX = 5000;
/** The browser's own methods: the percentiles are what a page waits for. */
const LATENCY_METHODS = ["xhr", "jsonp", "ws"] as const;
/** Uptime counts every probe of a server: the browsers' and the servers' own of their peers. */
const UPTIME_METHODS = [...LATENCY_METHODS, ...PEER_METHODS];

export interface StatusSources {
  nowMs: () => number;
  /** The servers the deployment probes now, this one first. */
  servers: () => readonly string[];
  health: Pick<HealthFeed, "states">;
  queries: Pick<Queries, "targetHealth">;
  incidents: Pick<IncidentStore, "incidentsBetween">;
}

/** Whether an incident is the server's to show (not one client's own path). */
export function isPublic(i: Incident): boolean {
  if (i.verdict === "client" || i.verdict === "browser") return false;
  return !(i.verdict === "network" && i.clients.length > 0);
}

const share = (ok: number, failures: number) => (ok + failures === 0 ? null : ok / (ok + failures));

function sum(buckets: readonly TargetBucket[]): { ok: number; failures: number } {
  let ok = 0;
  let failures = 0;
  for (const b of buckets) {
    ok += b.ok;
    failures += b.failures;
  }
  return { ok, failures };
}

/** How much of [from, to) the incident covers (ms). */
function overlapMs(i: Incident, fromMs: number, toMs: number, nowMs: number): number {
  return Math.max(0, Math.min(toMs, i.end ?? nowMs) - Math.max(fromMs, i.start));
}

export async function buildStatus(s: StatusSources, signal?: AbortSignal): Promise<StatusResponse> {
  const nowMs = s.nowMs();
  const t0 = Math.floor(nowMs / DAY_MS) * DAY_MS - (STATUS_DAYS - 1) * DAY_MS;
  const known = s.servers().filter((n) => !n.includes("+"));
  const filter = { fromMs: t0, toMs: nowMs, methods: UPTIME_METHODS };
  const [days, last24, stored] = await Promise.all([
    s.queries.targetHealth(
      filter,
      { axis: { t0, bucketMs: DAY_MS, buckets: STATUS_DAYS }, latencyMethods: LATENCY_METHODS },
      { signal },
    ),
    s.queries.targetHealth(
      { ...filter, fromMs: nowMs - DAY_MS },
      { axis: null, latencyMethods: LATENCY_METHODS },
      { signal },
    ),
    s.incidents.incidentsBetween(t0, nowMs, INCIDENTS_READ_MAX),
  ]);
  const incidents = stored.incidents.filter(isPublic);
  const names = [...known, ...days.map((d) => d.target).filter((t) => !known.includes(t))];
  const states = new Map(s.health.states().map((h) => [h.target, h]));

  const servers = names.map((name): StatusServer => {
    const mine = incidents.filter((i) => i.target === name);
    const buckets = days.find((d) => d.target === name)?.buckets ?? [];
    const h = states.get(name);
    let state: HealthState = h?.state ?? "unknown";
    let since: number | null = h?.sinceMs ?? null;
    // Down or degraded for one client's own path only: up, as far as the public can tell.
    if ((state === "down" || state === "degraded") && !mine.some((i) => i.end === null)) {
      state = "up";
      since = mine.reduce<number | null>((last, i) => Math.max(last ?? 0, i.end ?? 0), null);
    }
    const perDay: StatusDay[] = Array.from({ length: STATUS_DAYS }, (_, k) => {
      const start = t0 + k * DAY_MS;
      const b = buckets[k] ?? { ok: 0, failures: 0, p50: null, p99: null };
      const overlapping = mine.filter((i) => i.start < start + DAY_MS && (i.end ?? nowMs) >= start);
      return {
        start,
        uptime: share(b.ok, b.failures),
        probes: b.ok + b.failures,
        p50: b.p50,
        p99: b.p99,
        downMs: overlapping
          .filter((i) => i.kind === "down")
          .reduce((ms, i) => ms + overlapMs(i, start, start + DAY_MS, nowMs), 0),
        incidents: overlapping.length,
      };
    });
    const week = sum(buckets.slice(-7));
    const all = sum(buckets);
    const day = sum(last24.find((d) => d.target === name)?.buckets ?? []);
    const listed: PublicIncident[] = [...mine]
      .sort((a, b) => b.start - a.start)
      .slice(0, STATUS_INCIDENTS_MAX)
      .map((i) => ({ id: i.id, kind: i.kind, start: i.start, end: i.end, verdict: i.verdict, summary: i.summary }));
    return {
      name,
      state,
      since,
      uptime: {
        "24h": share(day.ok, day.failures),
        "7d": share(week.ok, week.failures),
        "90d": share(all.ok, all.failures),
      },
      days: perDay,
      incidents: listed,
    };
  });
  return { generatedAt: nowMs, servers };
}
