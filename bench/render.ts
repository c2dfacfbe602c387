// Renders docs/bench-results.json into docs/performance.md, between marker
// comments, so the page's figures are never typed by hand:
// `<!-- bench:NAME -->` … `<!-- /bench:NAME -->` for NAME in machine, full, long.
// The page holds every figure with a goal; docs/performance-figures.md, written
// whole, holds every figure (those only reported too), so the page stays short.
// `npm run bench` calls it after writing the results; `npm run bench:render`
// runs it alone (after editing the page around the markers).
import fs from "node:fs";
import path from "node:path";
import { BENCHMARKS } from "./benchmarks.js";
import type { BenchRow } from "./result.js";
import { readResults, type BenchRecord, type Machine, type Results, type WholeRun } from "./results.js";
import { formatRow, isMain, type BenchMode } from "./table.js";

export const PERFORMANCE_PATH = path.resolve("docs/performance.md");
export const FIGURES_PATH = path.resolve("docs/performance-figures.md");
const FIGURES_LINK = "performance-figures.md";

const day = (iso: string) => iso.slice(0, 16).replace("T", " ");

const machineText = (m: Machine) =>
  `${m.cores} × ${m.cpu}, ${m.memoryGb} GB, ${m.os}, Node ${m.node.replace(/^v/, "")}`;

function renderMachine(results: Results): string {
  const records = [...Object.values(results.full), ...Object.values(results.long)];
  if (records.length === 0) return "No benchmark has been run yet.";
  const known = records.flatMap((r) => (r.machine === null ? [] : [r.machine]));
  const machines = [...new Set(known.map(machineText))];
  const loads = known.flatMap((m) => (m.loadAverage === null ? [] : [m.loadAverage]));
  const unknown = records.length - known.length;
  return [
    ...machines.map((m) => `- ${m}`),
    ...(unknown > 0
      ? [
          `- not recorded for ${unknown} of the ${records.length} benchmarks (figures from before the runner recorded it)`,
        ]
      : []),
    `- 1-minute load average as each benchmark started: ${loads.length === 0 ? "not recorded" : Math.min(...loads) === Math.max(...loads) ? `${loads[0]}` : `${Math.min(...loads)}–${Math.max(...loads)}`}; the machine is shared, so read the ratios`,
  ].join("\n");
}

const fmtSeconds = (s: number) => `${Math.round(s)} s`;
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

function wholeRunText(mode: BenchMode, run: WholeRun | undefined): string {
  const command = mode === "full" ? "npm run bench" : "npm run bench -- long";
  if (run === undefined) return `No whole \`${command}\` recorded yet; each benchmark below says when it ran.`;
  return (
    `Last whole \`${command}\`: ${day(run.at)} UTC, commit ${run.commit}, ${fmtSeconds(run.seconds)}, ` +
    `${count(run.figures, "figure")}, ${count(run.missed, "goal")} missed, ${count(run.failed, "benchmark")} failed. ` +
    `One benchmark: \`${command === "npm run bench" ? "npm run bench --" : command} NAME\`.`
  );
}

/** A figure judged against a goal (in a smoke run, one that would be). */
const judged = (r: BenchRow) => !r.goal.startsWith(ONLY_REPORTED_PREFIX);

/**
 * One part: the whole run, then one table, each benchmark's figures under a
 * row that says what it measures and how long it took (and when it ran, if
 * not in the whole run). `all`: every figure; else those with a goal, and a
 * count of the rest with a link to where they are.
 */
function renderPart(results: Results, mode: BenchMode, order: readonly string[], all: boolean): string {
  const records = results[mode];
  const whole = results.wholeRuns[mode];
  const names = [...order.filter((n) => n in records), ...Object.keys(records).filter((n) => !order.includes(n))];
  const rec = (n: string) => records[n] as BenchRecord;
  const sources = [...new Set(names.flatMap((n) => (rec(n).source === undefined ? [] : [rec(n).source!])))];
  const heading = (n: string) => {
    const r = rec(n);
    const alone =
      whole !== undefined && r.at >= whole.at && r.at <= addSeconds(whole.at, whole.seconds)
        ? ""
        : ` Ran ${day(r.at)} UTC, commit ${r.commit}.`;
    const failed = r.error === undefined ? "" : ` **Failed:** ${r.error.split("\n")[0]}`;
    const hidden = all ? 0 : r.rows.filter((x) => !judged(x)).length;
    const more = hidden === 0 ? "" : ` [+${hidden} reported](${FIGURES_LINK})`;
    return `| **${n}** (${fmtSeconds(r.seconds)}): ${r.about}${alone}${failed}${more} ${"|".repeat(HEAD.length)}`;
  };
  const table = [
    `| ${HEAD.join(" | ")} |`,
    `|${HEAD.map(() => "---").join("|")}|`,
    ...names.flatMap((n) => [heading(n), ...tableRows(rec(n).rows.filter((x) => all || judged(x)))]),
  ];
  return [
    wholeRunText(mode, whole),
    ...sources.map((s) => `(${s}.)`),
    ...(names.length > 0 ? ["", ...table] : []),
  ].join("\n");
}

const HEAD = ["figure", "value", "baseline", "ratio", "goal", "pass"];
/** A goal that only says the figure is reported: the pass column's – says it. */
const ONLY_REPORTED = "(reported)";
/** Goals of figures only reported: "(reported)" and "(reported: why it is worth seeing)". */
const ONLY_REPORTED_PREFIX = "(reported";
/** A goal the row above has too. */
const DITTO = "〃";

/**
 * The table's rows of one benchmark, as the runner prints them but for the
 * benchmark's name, a bare "(reported)" (the pass column's – says it) and a
 * goal repeated from the row above (〃).
 */
function tableRows(rows: readonly BenchRow[]): string[] {
  let above: string | null = null;
  return rows.map((r) => {
    const cells = formatRow(r);
    const goal = r.goal === ONLY_REPORTED ? "" : r.goal === above ? DITTO : r.goal;
    above = r.goal;
    cells[4] = goal;
    return `| ${cells.join(" | ")} |`;
  });
}

const addSeconds = (iso: string, s: number) => new Date(Date.parse(iso) + s * 1000).toISOString();

/** `md` with each marked region replaced by what `results` renders there. */
export function renderPerformance(md: string, results: Results, order: readonly string[]): string {
  const regions: Record<string, string> = {
    machine: renderMachine(results),
    full: renderPart(results, "full", order, false),
    long: renderPart(results, "long", order, false),
  };
  let out = md;
  for (const [name, body] of Object.entries(regions)) {
    const open = `<!-- bench:${name} -->`;
    const close = `<!-- /bench:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`docs/performance.md lacks the markers ${open} … ${close}`);
    out = `${out.slice(0, start + open.length)}\n${body}\n${out.slice(end)}`;
  }
  return out;
}

/** docs/performance-figures.md: every figure of both parts, the machine, and where the goals are. */
export function renderFigures(results: Results, order: readonly string[]): string {
  return [
    "# Every benchmark figure",
    "",
    "Generated by `npm run bench` from [bench-results.json](bench-results.json), like the tables",
    "of [performance.md](performance.md), which explains the benchmarks and how to read a row;",
    "this page adds the figures only reported (no goal) beside those with one.",
    "",
    "## The machine",
    "",
    renderMachine(results),
    "",
    "## `npm run bench`",
    "",
    renderPart(results, "full", order, true),
    "",
    "## `npm run bench -- long`",
    "",
    renderPart(results, "long", order, true),
    "",
  ].join("\n");
}

/** Rewrites docs/performance.md and docs/performance-figures.md from docs/bench-results.json. */
export function renderPerformanceFile(order: readonly string[]): void {
  const md = fs.readFileSync(PERFORMANCE_PATH, "utf8");
  const results = readResults();
  fs.writeFileSync(PERFORMANCE_PATH, renderPerformance(md, results, order));
  fs.writeFileSync(FIGURES_PATH, renderFigures(results, order));
}

if (isMain(import.meta.url)) {
  renderPerformanceFile(Object.keys(BENCHMARKS));
  console.log(
    `rendered ${path.relative(process.cwd(), PERFORMANCE_PATH)} and ${path.relative(process.cwd(), FIGURES_PATH)}`,
  );
}
