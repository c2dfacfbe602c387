// How well the change finder finds planted shifts (docs/changes.md): weeks of
// synthetic 1 Hz latencies (testkit/synthetic-month.ts: log-normal body, rare
// spikes and bursts, a daily cycle, hidden-tab gaps) with shifts planted in
// one part of the path at a time (network, server, HTTP, browser), found on
// the same cells the rollups give. Prints the share of ≥ 30 % median shifts
// lasting ≥ 2 hours found within 30 minutes, false changes per series and
// week on the same data without shifts, and how often a probe's change names
// the part the shift was planted in. The cells are held in memory; the store
// tests (tests/integration/changes-api.test.ts) check the server finds the same.
// Run: npm run bench -- change-detection  (or: npx tsx bench/change-detection.ts [smoke|full])
import { runDetection, type DetectionRun } from "../testkit/detection-run.js";
import { plantShifts } from "../testkit/planted-shifts.js";
import type { MonthPlan } from "../testkit/synthetic-month.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const START_MS = Date.UTC(2026, 3, 1);
const TARGETS = [
  { name: "A", pathMs: 0.4, serverMs: 0.15 },
  { name: "B", pathMs: 18, serverMs: 0.15 },
];
const SIZES = {
  smoke: { days: 7, targets: TARGETS.slice(1), methods: ["xhr", "ws", "ping"], seeds: [1] },
  full: { days: 30, targets: TARGETS, methods: ["xhr", "jsonp", "ws", "ping", "wsping", "tcprtt"], seeds: [1] },
} as const;
const CLIENTS = 2;
const SHIFTS_PER_WEEK = 6;
const DETECTION_MIN = 0.95;
const FALSE_PER_WEEK_MAX = 1;
const VERDICT_MIN = 0.9;

function planOf(size: (typeof SIZES)[BenchSize], seed: number, shifted: boolean): MonthPlan {
  const { days, targets, methods } = size;
  const shifts = shifted
    ? plantShifts({ seed, startMs: START_MS, days, targets, clients: CLIENTS, perWeek: SHIFTS_PER_WEEK })
    : [];
  return { startMs: START_MS, days, seed, clients: CLIENTS, targets, methods, shifts };
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const s = SIZES[size];
  const shifted: DetectionRun[] = [];
  for (const seed of s.seeds) shifted.push(await runDetection(planOf(s, seed, true)));
  const quiet = await runDetection(planOf(s, 100 + s.seeds[0]!, false));
  const sum = (f: (r: DetectionRun) => number) => shifted.reduce((t, r) => t + f(r), 0);
  const expected = sum((r) => r.score.expected);
  const found = sum((r) => r.score.found);
  const judge = (ok: boolean) => (size === "smoke" ? null : ok);
  const rows: BenchRow[] = [
    {
      figure: `shifts of ≥ 30 % in the median lasting ≥ 2 h found within 30 min (${found} of ${expected}, ${s.days} days × ${s.seeds.length} seeds, share)`,
      value: expected === 0 ? 0 : found / expected,
      baseline: null,
      goal: `≥ ${DETECTION_MIN}`,
      pass: judge(found / expected >= DETECTION_MIN),
    },
    {
      figure: `false changes per series and week, no shifts planted (${quiet.score.falseChanges} over ${quiet.seriesWeeks.toFixed(0)} series-weeks)`,
      value: quiet.score.falseChanges / quiet.seriesWeeks,
      baseline: null,
      goal: `≤ ${FALSE_PER_WEEK_MAX}`,
      pass: judge(quiet.score.falseChanges / quiet.seriesWeeks <= FALSE_PER_WEEK_MAX),
    },
    {
      figure: `changes no planted shift explains, per series and week, shifts planted (${sum((r) => r.score.falseChanges)})`,
      value: sum((r) => r.score.falseChanges) / sum((r) => r.seriesWeeks),
      baseline: null,
      goal: `≤ ${FALSE_PER_WEEK_MAX}`,
      pass: judge(sum((r) => r.score.falseChanges) / sum((r) => r.seriesWeeks) <= FALSE_PER_WEEK_MAX),
    },
  ];
  for (const kind of ["network", "server", "http", "browser"] as const) {
    const right = sum((r) => r.verdicts[kind].right);
    const total = sum((r) => r.verdicts[kind].total);
    rows.push({
      figure: `probe changes of a ${kind} shift told "${kind === "browser" ? "client" : kind}" (${right} of ${total}, share)`,
      value: total === 0 ? 0 : right / total,
      baseline: null,
      goal: `≥ ${VERDICT_MIN}`,
      pass: judge(total > 0 && right / total >= VERDICT_MIN),
    });
  }
  rows.push({
    figure: `finding them: seconds per series-week (generating the cells: ${sum((r) => r.generateS).toFixed(0)} s)`,
    value: (sum((r) => r.findS) + quiet.findS) / (sum((r) => r.seriesWeeks) + quiet.seriesWeeks),
    baseline: null,
    goal: "(reported)",
    pass: null,
  });
  return rows;
}

export const bench: Benchmark = {
  name: "change-detection",
  about:
    "The change finder on synthetic months at 1 Hz with shifts planted in one part of the path at a time: the share of ≥ 30 % median shifts lasting ≥ 2 h found within 30 minutes, false changes per series and week without shifts, and how often a probe's change names the planted part.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
