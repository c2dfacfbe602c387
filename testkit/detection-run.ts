// The change finder run over a synthetic month held in memory, as the
// server runs it over rollups (every series, all clients and each client,
// each change described), scored against the planted shifts: what the
// detection benchmark prints and the rate test guards.
import { describePoint } from "../shared/changes/describe.js";
import { findSeriesChanges } from "../shared/changes/clients.js";
import { CHANGE_PARAMS_DEFAULT, type ChangeParams } from "../shared/changes/find.js";
import { ALL_CLIENTS, cellKey, MemoryCells, serverKey } from "./memory-cells.js";
import {
  expectedChanges,
  scoreChanges,
  seriesOf,
  type ExpectedChange,
  type ReportedChange,
  type Score,
} from "./planted-shifts.js";
import type { MonthPlan, ShiftKind } from "./synthetic-month.js";

const DAY_MS = 86_400_000;
const PROBES = new Set(["xhr", "jsonp", "ws"]);
/** What a change on a probe should be told, by the part its shift was planted in. */
export const EXPECTED_VERDICT: Record<ShiftKind, string> = {
  network: "network",
  server: "server",
  http: "http",
  browser: "client",
};

export interface DetectionRun {
  score: Score;
  /** Series (method × target) × weeks: false changes are counted per series and week. */
  seriesWeeks: number;
  /** Probe changes found for a planted shift, by its part: how many were told that part. */
  verdicts: Record<ShiftKind, { right: number; total: number }>;
  reported: ReportedChange[];
  /** Seconds spent generating the cells and finding the changes. */
  generateS: number;
  findS: number;
}

export async function runDetection(plan: MonthPlan, p: ChangeParams = CHANGE_PARAMS_DEFAULT): Promise<DetectionRun> {
  const t0 = performance.now();
  const cells = new MemoryCells(plan);
  const t1 = performance.now();
  const endMs = plan.startMs + plan.days * DAY_MS;
  const clientOf = (key: string): number | null => {
    const c = key.slice(key.lastIndexOf("|") + 1);
    return c === ALL_CLIENTS ? null : Number(c);
  };
  const reported: ReportedChange[] = [];
  const seriesList = seriesOf(plan.methods);
  for (const target of plan.targets)
    for (const method of seriesList) {
      const clients = Array.from({ length: plan.clients }, (_, c) => cellKey(method, target.name, c));
      const points = await findSeriesChanges(
        cells,
        cellKey(method, target.name, null),
        clients,
        plan.startMs,
        endMs,
        p,
      );
      for (const pt of points) {
        const client = pt.client === null ? null : clientOf(pt.client);
        const key = (m: string) => cellKey(m, target.name, client);
        const has = (m: string) => seriesList.includes(m);
        const { verdict } = await describePoint(
          cells,
          pt,
          { method, target: target.name, client: client === null ? null : `#${client}` },
          {
            self: key(method),
            baseline: (m) => (has(m) ? key(m) : null),
            server: PROBES.has(method) ? serverKey(method, target.name, client) : null,
            ws: (method === "xhr" || method === "jsonp") && has("ws") ? key("ws") : null,
          },
        );
        const statistic = pt.moves[0]!.statistic;
        reported.push({ method, target: target.name, client, t: pt.t, earliestT: pt.earliestT, statistic, verdict });
      }
    }
  const expected = expectedChanges(plan);
  const score = scoreChanges(plan, reported, expected);
  return {
    score,
    seriesWeeks: (seriesList.length * plan.targets.length * plan.days) / 7,
    verdicts: tallyVerdicts(expected, reported, score),
    reported,
    generateS: (t1 - t0) / 1000,
    findS: (performance.now() - t1) / 1000,
  };
}

/** For each found probe change of a planted shift, whether its verdict names the part the shift was planted in. */
function tallyVerdicts(
  expected: readonly ExpectedChange[],
  reported: readonly ReportedChange[],
  score: Score,
): DetectionRun["verdicts"] {
  const out: DetectionRun["verdicts"] = {
    network: { right: 0, total: 0 },
    server: { right: 0, total: 0 },
    http: { right: 0, total: 0 },
    browser: { right: 0, total: 0 },
  };
  for (const e of expected) {
    if (!PROBES.has(e.method) || score.missed.includes(e)) continue;
    const c = reported.find(
      (r) =>
        r.method === e.method &&
        r.target === e.target &&
        (r.client === null || r.client === e.client) &&
        e.atMs >= r.earliestT - 30 * 60_000 &&
        e.atMs <= r.t + 30 * 60_000,
    );
    if (c === undefined) continue;
    out[e.kind].total++;
    if (c.verdict === EXPECTED_VERDICT[e.kind]) out[e.kind].right++;
  }
  return out;
}
