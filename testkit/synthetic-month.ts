// Weeks of 1 Hz latencies with planted level shifts, for the change
// detector's tests and benchmark (docs/changes.md). Every series of a target
// is built from the parts of the path it crosses, so a shift planted in one
// part moves exactly the series that cross it:
//   ping    path                        wsping  path + the page's network stack
//   tcprtt  path (kernel), minRTT beside it
//   xhr     path + server + HTTP + browser    (and its serverMs: server)
//   jsonp   path + server + HTTP + browser
//   ws      path + server + WebSocket + browser
// Each sample is its series' median times a log-normal body (σ 0.1–0.25),
// now and then a spike (×3 to ×15; 0.5 % of samples, 30 % inside a burst of
// 1–5 minutes, twice a day per target), on a daily cycle of the path
// (±10 %), with gaps where a client's tab was hidden (three a day, 5 minutes
// to 2 hours, no samples). Values are integer µs as the store keeps them.
import { mulberry32 as prng } from "../shared/prng.js";

export type ShiftKind = "network" | "server" | "http" | "browser";

/** A shift of one part of the path, from atMs until untilMs, for one client (index) or all (null). */
export interface PlantedShift {
  kind: ShiftKind;
  target: string;
  client: number | null;
  atMs: number;
  untilMs: number;
  /** The part's added time (ms): sized so its primary series' median moves by the planted factor. */
  addMs: number;
}

export interface MonthTarget {
  name: string;
  /** Round trip of the network path (ms) and the server's handler time (ms), medians. */
  pathMs: number;
  serverMs: number;
}

export interface MonthPlan {
  startMs: number;
  days: number;
  seed: number;
  clients: number;
  targets: readonly MonthTarget[];
  methods: readonly string[];
  shifts: readonly PlantedShift[];
  /** Daily cycle of the path, as ln of its largest factor (default 0.1: ±10 %). */
  dailyAmplitude?: number;
  /** Gaps (hidden tab) per client per day (default 3). */
  gapsPerDay?: number;
}

/** One sample: client index, method, target, send time (epoch ms), latency (µs), server time (µs) and min RTT (µs) where the method has them. */
export type MonthVisit = (
  client: number,
  method: string,
  target: string,
  t: number,
  us: number,
  serverUs: number | null,
  minrttUs: number | null,
) => void;

const DAY_MS = 86_400_000;
/** Fixed parts of the path beyond network and server (ms). */
const HTTP_MS: Record<string, number> = { xhr: 2.5, jsonp: 3 };
const WS_MS = 0.3;
const BROWSER_MS = 0.8;
const STACK_MS = 0.25;
const SIGMA: Record<string, number> = { ping: 0.12, wsping: 0.15, tcprtt: 0.1, xhr: 0.25, jsonp: 0.25, ws: 0.2 };
const SERVER_SIGMA = 0.3;
const SPIKE_SHARE = 0.005;
const BURST_SPIKE_SHARE = 0.3;
const BURSTS_PER_DAY = 2;
const PROBES = new Set(["xhr", "jsonp", "ws"]);

/** Median of a series when nothing is shifted and the daily cycle is at zero (ms). */
export function baseMedianMs(method: string, t: MonthTarget): number {
  switch (method) {
    case "ping":
      return t.pathMs;
    case "wsping":
      return t.pathMs + STACK_MS;
    case "tcprtt":
      return t.pathMs * 1.05;
    case "ws":
      return t.pathMs + t.serverMs + WS_MS + BROWSER_MS;
    default:
      return t.pathMs + t.serverMs + (HTTP_MS[method] ?? 0) + BROWSER_MS;
  }
}

/** Which parts of the path a method's latency crosses. */
export function crosses(method: string, kind: ShiftKind): boolean {
  if (kind === "network") return true;
  if (kind === "http") return method === "xhr" || method === "jsonp";
  return PROBES.has(method);
}

/** The series whose median a shift of `kind` is sized on. */
export const PRIMARY: Record<ShiftKind, string> = { network: "ping", server: "xhr", http: "xhr", browser: "ws" };

/** A standard normal draw (Box–Muller). */
function gauss(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** Intervals [from, to) of one kind per day at random times. */
function randomIntervals(
  rand: () => number,
  plan: MonthPlan,
  perDay: number,
  minMs: number,
  maxMs: number,
): [number, number][] {
  const out: [number, number][] = [];
  for (let d = 0; d < plan.days; d++)
    for (let k = 0; k < perDay; k++) {
      const from = plan.startMs + (d + rand()) * DAY_MS;
      out.push([from, from + minMs + rand() * (maxMs - minMs)]);
    }
  out.sort((a, b) => a[0] - b[0]);
  // Overlapping intervals joined, so a cursor can walk them in time order.
  const joined: [number, number][] = [];
  for (const [a, b] of out) {
    const last = joined[joined.length - 1];
    if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
    else joined.push([a, b]);
  }
  return joined;
}

/** Whether ascending times fall in disjoint ascending intervals, in one pass. */
function cursor(xs: readonly [number, number][]): (t: number) => boolean {
  let i = 0;
  return (t) => {
    while (i < xs.length && xs[i]![1] <= t) i++;
    return i < xs.length && t >= xs[i]![0];
  };
}

/** Generates every sample of the plan in time order, one tick a second per client. */
export function monthOfLatencies(plan: MonthPlan, visit: MonthVisit): void {
  for (const _ of monthInHours(plan, visit));
}

/** monthOfLatencies, pausing after each hour of samples (the epoch ms it reached): an async consumer writes as it goes. */
export function* monthInHours(plan: MonthPlan, visit: MonthVisit): Generator<number> {
  const rand = prng(plan.seed);
  const amplitude = plan.dailyAmplitude ?? 0.1;
  const hidden = Array.from({ length: plan.clients }, () =>
    cursor(randomIntervals(rand, plan, plan.gapsPerDay ?? 3, 5 * 60_000, 120 * 60_000)),
  );
  const targets = plan.targets.map((target, k) => {
    const bursts = randomIntervals(rand, plan, BURSTS_PER_DAY, 60_000, 300_000);
    return {
      target,
      phase: 2 * Math.PI * ((k * 0.37) % 1),
      inBurst: Array.from({ length: plan.clients }, () => cursor(bursts)),
    };
  });
  const endMs = plan.startMs + plan.days * DAY_MS;
  // Shifts in effect at time t for (target, client), summed per part.
  const added = { network: 0, server: 0, http: 0, browser: 0 };
  const sumShifts = (target: string, client: number, t: number) => {
    added.network = added.server = added.http = added.browser = 0;
    for (const s of plan.shifts)
      if (s.target === target && (s.client === null || s.client === client) && t >= s.atMs && t < s.untilMs)
        added[s.kind] += s.addMs;
  };
  for (let t0 = plan.startMs; t0 < endMs; t0 += 1000) {
    if (t0 % 3_600_000 === 0) yield t0;
    for (let c = 0; c < plan.clients; c++) {
      const t = t0 + c * 97;
      if (hidden[c]!(t)) continue;
      for (const { target, phase, inBurst } of targets) {
        sumShifts(target.name, c, t);
        const cycle = Math.exp(amplitude * Math.sin((2 * Math.PI * (t % DAY_MS)) / DAY_MS + phase));
        const path = target.pathMs * cycle + added.network;
        const server = target.serverMs + added.server;
        const spikeShare = inBurst[c]!(t) ? BURST_SPIKE_SHARE : SPIKE_SHARE;
        for (const method of plan.methods) {
          let ms: number;
          if (method === "ping") ms = path;
          else if (method === "wsping") ms = path + STACK_MS;
          else if (method === "tcprtt") ms = path * 1.05;
          else if (method === "ws") ms = path + server + WS_MS + BROWSER_MS + added.browser;
          else ms = path + server + (HTTP_MS[method] ?? 0) + added.http + BROWSER_MS + added.browser;
          ms *= Math.exp((SIGMA[method] ?? 0.2) * gauss(rand));
          if (rand() < spikeShare) ms *= 3 + 12 * rand();
          const serverUs = PROBES.has(method)
            ? Math.max(1, Math.round(server * Math.exp(SERVER_SIGMA * gauss(rand)) * 1000))
            : null;
          const minrttUs = method === "tcprtt" ? Math.max(1, Math.round(path * 950)) : null;
          visit(c, method, target.name, t, Math.max(1, Math.round(ms * 1000)), serverUs, minrttUs);
        }
      }
    }
  }
}
