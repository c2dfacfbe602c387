// The probe page's small live view: last latency and running counts per
// (method, target), so a user can see at a glance that probing works.
// Samples are only counted when they arrive; the DOM and the sparklines are
// written in render(), which the scheduler calls in the housekeeping slot:
// style, layout and paint never share a probe's moment, and happen at most
// once a tick instead of once a sample (less often when nobody is there:
// render-cadence.ts). A hidden page skips drawing altogether.
import { METHOD_LABELS, methodOrder, type Method } from "../../../shared/methods.js";
import { formatCount, formatMs } from "../../../shared/format.js";
import type { Sample } from "../../../shared/contract/samples.js";
import { UNATTENDED_RENDER_MS } from "./render-cadence.js";
import { SPARK_POINTS_MAX, Sparkline, type SparkColours } from "./sparkline.js";

interface Cells {
  last: HTMLTableCellElement;
  ok: HTMLTableCellElement;
  failed: HTMLTableCellElement;
  skipped: HTMLTableCellElement;
  spark: Sparkline;
}

interface Row {
  method: Method;
  target: string;
  /** Created at the first render after the row's first sample. */
  cells: Cells | undefined;
  /** The last minute's latencies, handed to the sparkline at render. */
  pending: (number | null)[];
  okCount: number;
  failedCount: number;
  skippedCount: number;
  /** What the "last" cell should say, and whether it is a failure. */
  lastText: string;
  lastBad: boolean;
  dirty: boolean;
}

/** Failure ticks' colour when the stylesheet gives none. */
const BAD_FALLBACK = "#b3261e";

export class LiveView {
  private readonly rows = new Map<string, Row>();
  private total = 0;
  private shownTotal = -1;
  private shownUnattended = false;

  constructor(
    private readonly tbody: HTMLTableSectionElement,
    private readonly count: HTMLElement,
  ) {}

  record(s: Sample): void {
    this.total++;
    const row = this.row(s.method, s.target);
    if (s.outcome !== "skipped") {
      row.pending.push(s.outcome === "ok" ? s.ms : null);
      if (row.pending.length > SPARK_POINTS_MAX) row.pending.shift();
    }
    if (s.outcome === "ok") {
      row.okCount++;
      row.lastText = formatMs(s.ms);
      row.lastBad = false;
    } else {
      row.lastText = s.reason ? `${s.outcome} (${s.reason})` : s.outcome;
      row.lastBad = true;
      // A skipped tick (frozen page, sleeping machine) is a gap, not a failure of the path.
      if (s.outcome === "skipped") row.skippedCount++;
      else row.failedCount++;
    }
    row.dirty = true;
  }

  /** Writes what changed since the last render to the page; unattended: the view is redrawn slowly (render-cadence.ts). */
  render(unattended = false): void {
    if (document.visibilityState === "hidden") return;
    if (this.shownTotal !== this.total || this.shownUnattended !== unattended) {
      this.count.textContent = unattended
        ? `${this.total} samples · redrawn every ${UNATTENDED_RENDER_MS / 1000} s until you move the pointer`
        : `${this.total} samples`;
      this.shownTotal = this.total;
      this.shownUnattended = unattended;
    }
    // Read before any write, so reading the style forces no extra layout.
    let colours: SparkColours | undefined;
    const first = this.rows.values().next().value;
    if (first?.cells !== undefined) colours = this.colours(first.cells.spark.canvas);
    for (const row of this.rows.values()) {
      if (!row.dirty) continue;
      row.dirty = false;
      const c = (row.cells ??= this.cells(row.method, row.target));
      c.last.textContent = row.lastText;
      c.last.className = row.lastBad ? "num bad" : "num";
      c.ok.textContent = formatCount(row.okCount);
      c.failed.textContent = formatCount(row.failedCount);
      c.skipped.textContent = formatCount(row.skippedCount);
      for (const v of row.pending) c.spark.push(v);
      row.pending = [];
      colours ??= this.colours(c.spark.canvas);
      c.spark.draw(colours);
    }
  }

  private colours(canvas: HTMLCanvasElement): SparkColours {
    const css = getComputedStyle(canvas);
    return { line: css.color, bad: css.getPropertyValue("--bad").trim() || BAD_FALLBACK };
  }

  private row(method: Method, target: string): Row {
    const key = `${method} ${target}`;
    let row = this.rows.get(key);
    if (row === undefined) {
      row = {
        method,
        target,
        cells: undefined,
        pending: [],
        okCount: 0,
        failedCount: 0,
        skippedCount: 0,
        lastText: "–",
        lastBad: false,
        dirty: false,
      };
      this.rows.set(key, row);
    }
    return row;
  }

  private cells(method: Method, target: string): Cells {
    const tr = document.createElement("tr");
    tr.dataset.method = method;
    tr.dataset.target = target;
    const cell = (text: string, cls = "") => {
      const td = document.createElement("td");
      td.textContent = text;
      if (cls) td.className = cls;
      tr.appendChild(td);
      return td;
    };
    cell(METHOD_LABELS[method]);
    cell(target);
    const last = cell("–", "num");
    const canvas = document.createElement("canvas");
    canvas.className = "spark";
    canvas.setAttribute("aria-label", `${METHOD_LABELS[method]} ${target}, last minute`);
    canvas.setAttribute("role", "img");
    cell("").appendChild(canvas);
    const cells: Cells = {
      last,
      spark: new Sparkline(canvas),
      ok: cell("0", "num"),
      failed: cell("0", "num"),
      skipped: cell("0", "num"),
    };
    // Keep the seed's order: per target, probes then baselines.
    const order = (m: string, t: string) => `${t}\u0000${String(methodOrder(m)).padStart(2, "0")}`;
    const mine = order(method, target);
    const after = [...this.tbody.rows].find((r) => order(r.dataset.method ?? "", r.dataset.target ?? "") > mine);
    this.tbody.insertBefore(tr, after ?? null);
    return cells;
  }
}
