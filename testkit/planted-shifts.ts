// Planted level shifts for the change detector: random shifts of one part
// of the path (synthetic-month.ts), the changes they should produce in each
// series, and the score of what a detector reported against them.
import { mulberry32 as prng } from "../shared/prng.js";
import {
  baseMedianMs,
  crosses,
  PRIMARY,
  type MonthPlan,
  type MonthTarget,
  type PlantedShift,
  type ShiftKind,
} from "./synthetic-month.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Any two shift boundaries on one target are at least this far apart, so each expected change is scored on its own. */
const SPACING_MS = 4 * HOUR_MS;
const KINDS: ShiftKind[] = ["network", "server", "http", "browser"];

export interface PlantOptions {
  seed: number;
  startMs: number;
  days: number;
  targets: readonly MonthTarget[];
  clients: number;
  /** Shifts per target per week. */
  perWeek: number;
  /** Planted factor on the primary series' median, drawn in [min, max]. */
  factorMin?: number;
  factorMax?: number;
}

/** Random shifts: episodes of 2–12 h (half), 12–72 h (30 %), or lasting past the end; one part at a time per target. */
export function plantShifts(o: PlantOptions): PlantedShift[] {
  const rand = prng(o.seed);
  const endMs = o.startMs + o.days * DAY_MS;
  const out: PlantedShift[] = [];
  for (const target of o.targets) {
    const boundaries: number[] = [];
    const free = (t: number) => boundaries.every((b) => Math.abs(b - t) >= SPACING_MS);
    const count = Math.round((o.perWeek * o.days) / 7);
    for (let k = 0, tries = 0; k < count && tries < 1000; tries++) {
      const atMs = Math.round(o.startMs + HOUR_MS * 6 + rand() * (endMs - o.startMs - HOUR_MS * 12));
      const r = rand();
      const lengthMs = r < 0.5 ? (2 + 10 * rand()) * HOUR_MS : r < 0.8 ? (12 + 60 * rand()) * HOUR_MS : Infinity;
      const untilMs = Math.round(Math.min(atMs + lengthMs, endMs + DAY_MS));
      // Overlapping shifts on a target would mix their changes: each lies alone.
      if (!free(atMs) || (untilMs < endMs && !free(untilMs))) continue;
      if (out.some((s) => s.target === target.name && s.atMs < untilMs && atMs < s.untilMs)) continue;
      const kind = KINDS[k % KINDS.length]!;
      const factor = (o.factorMin ?? 1.3) + rand() * ((o.factorMax ?? 2.2) - (o.factorMin ?? 1.3));
      const client = kind === "browser" || (kind === "network" && rand() < 0.3) ? Math.floor(rand() * o.clients) : null;
      out.push({
        kind,
        target: target.name,
        client,
        atMs,
        untilMs,
        addMs: (factor - 1) * baseMedianMs(PRIMARY[kind], target),
      });
      boundaries.push(atMs, untilMs);
      k++;
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** A change a planted shift should produce: series, client (index; null: every client's), when, and the median's factor. */
export interface ExpectedChange {
  method: string;
  target: string;
  client: number | null;
  atMs: number;
  factor: number;
  kind: ShiftKind;
}

/** Series a plan's methods produce (tcprtt brings the kernel's min RTT beside it). */
export function seriesOf(methods: readonly string[]): string[] {
  return methods.flatMap((m) => (m === "tcprtt" ? ["tcprtt", "tcpminrtt"] : [m]));
}

const crossesSeries = (series: string, kind: ShiftKind) => crosses(series === "tcpminrtt" ? "tcprtt" : series, kind);

/**
 * The changes of at least `minRel` in a series' median, at a shift's start
 * and (within the data) its end, whose segment on either side lasts at least
 * `minDurationMs`.
 */
export function expectedChanges(plan: MonthPlan, minRel = 0.3, minDurationMs = 2 * HOUR_MS): ExpectedChange[] {
  const endMs = plan.startMs + plan.days * DAY_MS;
  const out: ExpectedChange[] = [];
  for (const s of plan.shifts) {
    const target = plan.targets.find((t) => t.name === s.target)!;
    const others = plan.shifts.filter((x) => x !== s && x.target === s.target);
    const boundaries = [plan.startMs, endMs, ...others.flatMap((x) => [x.atMs, x.untilMs])];
    const segment = (t: number) => {
      const before = Math.max(...boundaries.filter((b) => b < t));
      const after = Math.min(...boundaries.filter((b) => b > t));
      return Math.min(t - before, after - t);
    };
    for (const series of seriesOf(plan.methods)) {
      if (!crossesSeries(series, s.kind)) continue;
      const base = series === "tcpminrtt" ? target.pathMs * 0.95 : baseMedianMs(series, target);
      const added = series === "tcpminrtt" ? s.addMs * 0.95 : series === "tcprtt" ? s.addMs * 1.05 : s.addMs;
      const factor = (base + added) / base;
      if (factor < 1 + minRel) continue;
      const last = Math.min(s.untilMs, endMs);
      if (last - s.atMs < minDurationMs) continue;
      if (segment(s.atMs) >= minDurationMs)
        out.push({ method: series, target: s.target, client: s.client, atMs: s.atMs, factor, kind: s.kind });
      if (s.untilMs < endMs && endMs - s.untilMs >= minDurationMs && segment(s.untilMs) >= minDurationMs)
        out.push({
          method: series,
          target: s.target,
          client: s.client,
          atMs: s.untilMs,
          factor: 1 / factor,
          kind: s.kind,
        });
    }
  }
  return out;
}

/** What a detector reported, as the scoring needs it. */
export interface ReportedChange {
  method: string;
  target: string;
  /** Client index, or null for the all-clients series. */
  client: number | null;
  t: number;
  earliestT: number;
  statistic?: string;
  verdict?: string;
}

export interface Score {
  expected: number;
  found: number;
  /** Reported changes no planted shift explains (any size, any client, within the tolerance of its start or end). */
  falseChanges: number;
  missed: ExpectedChange[];
  unexplained: ReportedChange[];
}

/** A time within tolerance of the interval a change was placed in ([earliestT, t + a cell): two cells, and any gap between). */
const near = (c: ReportedChange, atMs: number, toleranceMs: number) =>
  atMs >= c.earliestT - toleranceMs && atMs <= c.t + toleranceMs;

export function scoreChanges(
  plan: MonthPlan,
  reported: readonly ReportedChange[],
  expected: readonly ExpectedChange[],
  toleranceMs = 30 * 60_000,
): Score {
  const missed = expected.filter(
    (e) =>
      !reported.some(
        (c) =>
          c.method === e.method &&
          c.target === e.target &&
          (c.client === null || c.client === e.client) &&
          near(c, e.atMs, toleranceMs),
      ),
  );
  const unexplained = reported.filter(
    (c) =>
      !plan.shifts.some(
        (s) =>
          s.target === c.target &&
          crossesSeries(c.method, s.kind) &&
          (c.client === null || s.client === null || s.client === c.client) &&
          (near(c, s.atMs, toleranceMs) || near(c, s.untilMs, toleranceMs)),
      ),
  );
  return {
    expected: expected.length,
    found: expected.length - missed.length,
    falseChanges: unexplained.length,
    missed,
    unexplained,
  };
}
