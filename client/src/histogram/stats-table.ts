// The seed article's table: one row per (method, server), grouped per server
// with probes above baselines, best-of-two last.
import { formatCount, formatMs } from "../../../shared/format.js";
import { METHOD_LABELS, methodOrder, type Method } from "../../../shared/methods.js";
import type { StatsRow } from "../../../shared/contract/index.js";
import { samplesNeededFor } from "../../../shared/stats.js";
import { methodColour } from "./palette.js";
import { isThin } from "./transforms.js";

const PERCENTILE_COLUMNS = [
  ["p10", 10],
  ["p50", 50],
  ["p90", 90],
  ["p99", 99],
  ["p999", 99.9],
] as const;

const EXTRA_LABELS: Record<string, string> = { tcpminrtt: "Kernel TCP min RTT" };

export function methodLabel(method: string): string {
  return (METHOD_LABELS as Record<string, string>)[method] ?? EXTRA_LABELS[method] ?? method;
}

/** Rows sorted per server: single-server targets first by name, combined ("A+B") targets last. */
export function orderRows<T extends { method: string; target: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => {
    const ac = a.target.includes("+") ? 1 : 0;
    const bc = b.target.includes("+") ? 1 : 0;
    return ac - bc || a.target.localeCompare(b.target) || methodOrder(a.method) - methodOrder(b.method);
  });
}

function td(tr: HTMLTableRowElement, text: string, cls = ""): HTMLTableCellElement {
  const cell = document.createElement("td");
  cell.textContent = text;
  if (cls) cell.className = cls;
  tr.appendChild(cell);
  return cell;
}

/** What an empty table says: whether anything was ever stored, and a way out. */
export interface EmptyTable {
  /** The newest `lastSeen` of any client (GET /api/clients), or null when none has reported. */
  lastReportMs: number | null;
  /** Series, client, sample filters or a focus window narrow the range. */
  filtered: boolean;
  /** Switches the page to every stored sample; null when the range already is that. */
  onShowAll: (() => void) | null;
  nowMs: number;
}

/** "3 min", "9 h", "2 days": how long ago, coarsely. */
function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/**
 * A database opened again after the probes stopped (a saved run, a server
 * restarted the next day) holds samples, just none in the default last hour:
 * saying "open the probe page" there would send the user the wrong way.
 */
function emptyRow(empty: EmptyTable | undefined): HTMLTableRowElement {
  const tr = document.createElement("tr");
  const cell = td(tr, "", "empty");
  cell.colSpan = 13;
  if (empty === undefined || empty.lastReportMs === null) {
    cell.textContent = "no samples in this range yet: open the probe page and leave it running";
    return tr;
  }
  const when = new Date(empty.lastReportMs);
  cell.textContent = `no samples in this range${empty.filtered ? " with these filters" : ""}; the last report arrived ${when.toLocaleString()} (${ago(empty.nowMs - empty.lastReportMs)} ago) `;
  if (empty.onShowAll !== null) {
    const all = document.createElement("button");
    all.type = "button";
    all.id = "show-all";
    all.textContent = "show all samples";
    all.addEventListener("click", empty.onShowAll);
    cell.appendChild(all);
  }
  return tr;
}

export function renderStatsTable(tbody: HTMLTableSectionElement, rows: StatsRow[], empty?: EmptyTable): void {
  const frag = document.createDocumentFragment();
  if (rows.length === 0) frag.appendChild(emptyRow(empty));
  let lastTarget: string | undefined;
  for (const r of orderRows(rows)) {
    const tr = document.createElement("tr");
    tr.dataset.method = r.method;
    tr.dataset.target = r.target;
    if (lastTarget !== undefined && r.target !== lastTarget) tr.className = "group-start";
    lastTarget = r.target;
    const name = td(tr, "");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = methodColour(r.method);
    name.append(sw, methodLabel(r.method as Method));
    td(tr, r.target);
    td(tr, formatCount(r.count), "num");
    td(tr, formatCount(r.failures), r.failures > 0 ? "num bad" : "num");
    // Skipped ticks are honest gaps (frozen page, asleep machine, probe cap): neither latency nor failure.
    const sk = td(tr, formatCount(r.skipped), r.skipped > 0 ? "num" : "num muted");
    if (r.skipped > 0) sk.title = `${r.skipped} ticks skipped (page frozen, machine asleep or probe cap)`;
    const step = r.timerResolutionMs ?? null;
    const min = td(tr, withStep(r.min, step), "num");
    if (step !== null) min.title = stepTitle(step);
    for (const [key, p] of PERCENTILE_COLUMNS) {
      if (key === "p50") {
        const median = td(tr, formatMs(r.p50), "num");
        median.dataset.col = "p50";
        if (r.p50 !== null) median.dataset.ms = String(r.p50);
        td(tr, formatMs(r.mean), "num");
        continue;
      }
      const cell = td(tr, "", "num");
      cell.dataset.col = key;
      const value = r[key];
      if (value !== null) cell.dataset.ms = String(value);
      const needed = samplesNeededFor(p);
      if (value !== null && isThin(p, r.count)) {
        // Marked, not hidden: the value is real, it just says little about the tail.
        const mark = document.createElement("span");
        mark.className = "thin-mark";
        mark.textContent = "⚠";
        mark.setAttribute("aria-hidden", "true");
        const span = document.createElement("span");
        span.className = "thin";
        span.textContent = formatMs(value);
        const why = `only ${formatCount(r.count)} samples: p${p} needs at least ${formatCount(needed)} to rest on 10 samples beyond it`;
        cell.title = why;
        cell.setAttribute("aria-label", `${formatMs(value)}, too few samples: ${why}`);
        cell.append(mark, span);
        cell.dataset.thin = "true";
      } else if (key === "p10") {
        cell.textContent = withStep(value, step);
        if (step !== null) cell.title = stepTitle(step);
      } else {
        cell.textContent = formatMs(value);
      }
    }
    td(tr, formatMs(r.max), "num");
    frag.appendChild(tr);
  }
  tbody.replaceChildren(frag);
}

/** A step this large a share of a value is worth stating beside it: 1 % (a 20 µs step on a 2 ms latency). */
const STEP_SHOWN_SHARE = 0.01;

/**
 * Min and p10, the figures nearest the clock's step, with the step where it
 * matters: a reading below one step is "< step" (the clock did not move), one
 * within a hundred steps "value ± step" (a difference of two clock readings
 * may be off by up to a step either way).
 */
export function withStep(ms: number | null, stepMs: number | null): string {
  if (ms === null || stepMs === null || stepMs <= 0) return formatMs(ms);
  if (ms < stepMs) return `< ${formatMs(stepMs)}`;
  if (stepMs / ms < STEP_SHOWN_SHARE) return formatMs(ms);
  return `${formatMs(ms).replace(/ ms$/, "")} ± ${formatMs(stepMs)}`;
}

const stepTitle = (stepMs: number) =>
  `the page's clock moves in steps of ${formatMs(stepMs)}: each latency is a multiple of it`;

/** Finer than this (ms), a browser's timer is high-resolution: cross-origin isolated Chromium gives 0.005. */
const FINE_TIMER_MS_MAX = 0.01;

/**
 * The sentence beside the table about the browser's timer: every browser
 * latency is a multiple of the coarsest step any session in the range
 * measured. Empty when no session reported its step.
 */
export function timerNote(resolutionMs: number | null): string {
  if (resolutionMs === null) return "";
  if (resolutionMs <= FINE_TIMER_MS_MAX)
    return `Browser latencies are timed to ${+(resolutionMs * 1000).toFixed(1)} µs.`;
  return `Browser latencies are quantised to ${+resolutionMs.toFixed(3)} ms: a probe page's timer had that resolution (a page that is not cross-origin isolated gets 0.1 ms), so medians move in steps of it.`;
}
