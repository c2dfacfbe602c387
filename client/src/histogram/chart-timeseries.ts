// Latency over time: one panel per (method, server) with p50, p90, p99 and
// max per bucket and failures as bars along the bottom. Cursors are synced
// across panels (and the heatmap) so aligned oscillations line up under the
// pointer; a drag on any panel sets the focus window.
import uPlot from "uplot";
import type { Incident, TimeseriesResponse } from "../../../shared/contract/index.js";
import { formatCount } from "../../../shared/format.js";
import { axis, chartHeight, latencyTicks, latencyValue, readTheme, timeTicks, widthOf } from "./chart-style.js";
import { focusHooks, type FocusSource } from "./focus-band.js";
import { bandsFor } from "./incident-bands.js";
import { INCIDENT_COLOURS, PERCENTILE_COLOURS } from "./palette.js";
import { onPlotClick, type OnPick } from "./pick.js";
import { seriesLabel } from "./series-label.js";
import { timeseriesColumns } from "./transforms.js";
import type { TimeWindow } from "./url-state.js";

/**
 * Cursor sync across time charts. Only the pointer's position is shared: a
 * drag stays on the chart it started on, else every panel would report the
 * same selection.
 */
export const TIME_SYNC: uPlot.Cursor.Sync = {
  key: "tailprobe-time",
  setSeries: false,
  filters: { pub: (type) => type !== "mousedown" && type !== "mouseup" },
};
const HEIGHT_PX = 190;
/** At most this many period marks per panel: a short period over a long range would paint the panel solid. */
const MARKS_MAX = 200;

function formatPeriod(ms: number): string {
  return ms >= 3_600_000
    ? `${+(ms / 3_600_000).toFixed(1)} h`
    : ms >= 60_000
      ? `${+(ms / 60_000).toFixed(1)} min`
      : `${Math.round(ms / 1000)} s`;
}

/** A repeating pattern found in a series' tail (GET /api/periodicity), marked on its panel. */
export interface PeriodMark {
  periodMs: number;
  /** A peak of the wave (epoch ms); the others are a whole number of periods away. */
  peakAtMs: number;
  /** Which percentile repeats, for the caption ("p99"). */
  percentile: string;
}

/** A level shift found in a series (GET /api/changes), marked on its panel. */
export interface ChangeMark {
  id: string;
  /** When it shows (epoch ms), and since when it may have begun (a gap without data widens it). */
  t: number;
  earliestT: number;
  up: boolean;
  /** One client's change only: drawn dashed. */
  oneClient: boolean;
  chosen: boolean;
  /** The evidence sentence, as the mark's tooltip. */
  title: string;
}

interface Panel {
  key: string;
  /** Buttons over the plot, one per change mark. */
  marks: HTMLElement;
  caption: HTMLElement;
  title: string;
  card: HTMLElement;
  plot: HTMLElement;
  u: uPlot;
}

export class TimeseriesPanels {
  private panels = new Map<string, Panel>();
  private themeKey = "";
  private range: TimeWindow = { fromMs: 0, toMs: 1 };
  private ts: TimeseriesResponse | null = null;
  private periods = new Map<string, PeriodMark>();
  private changes = new Map<string, ChangeMark[]>();
  private onMark: (id: string) => void = () => {};
  private incidents: readonly Incident[] = [];
  private readonly ro: ResizeObserver;

  constructor(
    private readonly host: HTMLElement,
    private readonly focus: FocusSource,
    private readonly onPick?: OnPick,
  ) {
    // Each panel's own box is watched: cards move between grid columns as
    // panels come and go without the grid itself changing size.
    this.ro = new ResizeObserver((entries) => {
      for (const p of this.panels.values()) {
        if (entries.some((e) => e.target === p.plot))
          p.u.setSize({ width: widthOf(p.plot), height: chartHeight(HEIGHT_PX) });
      }
    });
  }

  update(ts: TimeseriesResponse, range: TimeWindow): void {
    this.range = range;
    this.ts = ts;
    const theme = document.documentElement.dataset.theme ?? "";
    if (theme !== this.themeKey) {
      this.clear();
      this.themeKey = theme;
    }
    const wanted = ts.series.map((s, i) => ({ key: `${s.method}@${s.target}`, s, i }));
    for (const [key, p] of this.panels) {
      if (!wanted.some((w) => w.key === key)) {
        this.ro.unobserve(p.plot);
        p.u.destroy();
        p.card.remove();
        this.panels.delete(key);
      }
    }
    if (wanted.length === 0) {
      this.host.replaceChildren(
        Object.assign(document.createElement("p"), { className: "empty", textContent: "no samples in this range" }),
      );
      return;
    }
    this.host.querySelector(":scope > p.empty")?.remove();
    for (const { key, s, i } of wanted) {
      const data = timeseriesColumns(ts, i) as uPlot.AlignedData;
      let p = this.panels.get(key);
      if (p === undefined) {
        p = this.create(key, seriesLabel(s.method, s.target), data);
        this.panels.set(key, p);
      } else {
        p.u.setData(data, false);
      }
      p.u.setScale("x", { min: range.fromMs, max: range.toMs });
      this.host.appendChild(p.card);
    }
  }

  /** Marks found periods on their panels (key "method@target"); an empty map clears them. */
  setPeriods(periods: Map<string, PeriodMark>): void {
    this.periods = periods;
    for (const p of this.panels.values()) {
      const m = periods.get(p.key);
      p.caption.textContent =
        m === undefined ? p.title : `${p.title} · ${m.percentile} repeats every ${formatPeriod(m.periodMs)}`;
      p.u.redraw(false, false);
    }
  }

  /** Marks changes on their panels (key "method@target"); an empty map clears them. */
  setChanges(changes: Map<string, ChangeMark[]>): void {
    this.changes = changes;
    for (const p of this.panels.values()) p.u.redraw(false, false);
  }

  /** Calls back with a change's id when its mark is clicked. */
  onChangeMark(cb: (id: string) => void): void {
    this.onMark = cb;
  }

  /**
   * A change: a solid line at t (dashed for one client's), a light span back
   * to where it may have begun when a gap widens that, and a button over the
   * plot to choose it.
   */
  private drawChanges(key: string, u: uPlot, marksHost: HTMLElement): void {
    const marks = this.changes.get(key) ?? [];
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    const buttons: HTMLElement[] = [];
    ctx.save();
    for (const m of marks) {
      const x = u.valToPos(m.t, "x", true);
      if (x < left || x > left + width) continue;
      const colour = m.up ? PERCENTILE_COLOURS.p99 : PERCENTILE_COLOURS.p50;
      const x0 = Math.max(left, u.valToPos(m.earliestT, "x", true));
      ctx.globalAlpha = 0.12;
      ctx.fillStyle = colour;
      if (x - x0 > 2 * uPlot.pxRatio) ctx.fillRect(x0, top, x - x0, height);
      ctx.globalAlpha = m.chosen ? 1 : 0.8;
      ctx.strokeStyle = colour;
      ctx.lineWidth = (m.chosen ? 3 : 2) * uPlot.pxRatio;
      ctx.setLineDash(m.oneClient ? [5 * uPlot.pxRatio, 3 * uPlot.pxRatio] : []);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      const b = document.createElement("button");
      b.type = "button";
      b.className = `change-mark${m.chosen ? " chosen" : ""}`;
      b.dataset.id = m.id;
      b.title = m.title;
      b.textContent = m.up ? "▲" : "▼";
      b.style.left = `${u.valToPos(m.t, "x")}px`;
      b.style.color = colour;
      // Not a click on the chart: neither a pick nor the start of a drag.
      for (const type of ["mousedown", "mouseup", "click"])
        b.addEventListener(type, (e) => {
          e.stopPropagation();
          if (type === "click") this.onMark(m.id);
        });
      buttons.push(b);
    }
    ctx.restore();
    marksHost.replaceChildren(...buttons);
  }

  /** Shades each incident on its server's panels; an empty list clears them. */
  setIncidents(incidents: readonly Incident[]): void {
    this.incidents = incidents;
    for (const p of this.panels.values()) p.u.redraw(false, false);
  }

  /**
   * An incident's band: a light wash over its time and a strip along the top
   * in its kind's colour, under the lines and beside the focus band.
   */
  private drawIncidents(key: string, u: uPlot): void {
    const target = key.slice(key.indexOf("@") + 1);
    const bands = bandsFor(this.incidents, target, this.range, Date.now());
    if (bands.length === 0) return;
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    for (const b of bands) {
      const x0 = Math.max(left, u.valToPos(b.fromMs, "x", true));
      const x1 = Math.min(left + width, Math.max(x0 + uPlot.pxRatio, u.valToPos(b.toMs, "x", true)));
      const colour = b.kind === "down" ? INCIDENT_COLOURS.down : INCIDENT_COLOURS.degraded;
      ctx.fillStyle = `${colour}26`;
      ctx.fillRect(x0, top, x1 - x0, height);
      ctx.fillStyle = colour;
      ctx.fillRect(x0, top, x1 - x0, 4 * uPlot.pxRatio);
    }
    ctx.restore();
  }

  /** A click on a panel: the slowest sample of its series in the bucket under the pointer. */
  private pick(key: string, u: uPlot): void {
    const ts = this.ts;
    const left = u.cursor.left;
    if (ts === null || this.onPick === undefined || left === undefined || left < 0) return;
    const t = u.posToVal(left, "x");
    const start = ts.t.find((b) => t >= b && t < b + ts.bucketMs);
    const at = key.indexOf("@");
    if (start === undefined || at < 0) return;
    this.onPick({
      method: key.slice(0, at),
      target: key.slice(at + 1),
      fromMs: start,
      toMs: start + ts.bucketMs - 1,
      where: `the ${new Date(start).toLocaleTimeString()} bucket of its time chart`,
    });
  }

  /** Dashed lines at the wave's peaks, so a period can be checked by eye against the p99 line. */
  private drawPeriod(key: string, u: uPlot): void {
    const m = this.periods.get(key);
    if (m === undefined) return;
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    const from = this.range.fromMs;
    const to = this.range.toMs;
    let t = m.peakAtMs - Math.ceil((m.peakAtMs - from) / m.periodMs) * m.periodMs;
    ctx.save();
    ctx.strokeStyle = PERCENTILE_COLOURS.p99;
    ctx.globalAlpha = 0.6;
    ctx.setLineDash([2 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
    ctx.lineWidth = uPlot.pxRatio;
    for (let i = 0; t <= to && i < MARKS_MAX; t += m.periodMs, i++) {
      const x = u.valToPos(t, "x", true);
      if (x < left || x > left + width) continue;
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
    }
    ctx.restore();
  }

  /** Redraws the focus band after the focus changed without new data. */
  redraw(): void {
    for (const p of this.panels.values()) p.u.redraw(false, false);
  }

  private create(key: string, title: string, data: uPlot.AlignedData): Panel {
    const theme = readTheme();
    const card = document.createElement("figure");
    card.className = "panel";
    card.dataset.series = key;
    const caption = document.createElement("figcaption");
    caption.textContent = title;
    const plot = document.createElement("div");
    card.append(caption, plot);
    this.host.appendChild(card);
    const band = focusHooks(this.focus);
    const marks = document.createElement("div");
    marks.className = "change-marks";
    const u = new uPlot(
      {
        ms: 1,
        width: widthOf(plot),
        height: chartHeight(HEIGHT_PX),
        scales: {
          x: { time: true, range: () => [this.range.fromMs, this.range.toMs] },
          y: { distr: 3, log: 10 },
          // Failures live in the bottom fifth of the panel, under the latency lines.
          fail: { range: (_u, _min, max) => [0, Math.max(1, max) * 5] },
        },
        axes: [
          axis(theme, "local time", { values: timeTicks }),
          axis(theme, "latency (ms, log)", { values: latencyTicks, size: 56 }),
          axis(theme, "failures per bucket", {
            scale: "fail",
            side: 1,
            grid: { show: false },
            size: 40,
            values: (_u, splits) => splits.map((v) => (v !== null && Number.isInteger(v) ? formatCount(v) : "")),
          }),
        ],
        cursor: { sync: TIME_SYNC, drag: { x: true, y: false, setScale: false } },
        series: [
          { label: "time", value: (_u, v) => (v === null ? "–" : new Date(v).toLocaleTimeString()) },
          { label: "p50", stroke: PERCENTILE_COLOURS.p50, width: 1.5, spanGaps: false, value: latencyValue },
          { label: "p90", stroke: PERCENTILE_COLOURS.p90, width: 1.5, value: latencyValue },
          { label: "p99", stroke: PERCENTILE_COLOURS.p99, width: 1.5, value: latencyValue },
          { label: "max", stroke: PERCENTILE_COLOURS.max, width: 1, dash: [3, 3], value: latencyValue },
          {
            label: "failures",
            scale: "fail",
            stroke: PERCENTILE_COLOURS.failures,
            fill: `${PERCENTILE_COLOURS.failures}99`,
            paths: uPlot.paths.bars!({ size: [0.9, 12] }),
            points: { show: false },
            value: (_u, v) => (v === null ? "0" : formatCount(v)),
          },
        ],
        hooks: {
          ...band,
          draw: [
            (u) => this.drawIncidents(key, u),
            ...(band.draw ?? []),
            (u) => this.drawPeriod(key, u),
            (u) => this.drawChanges(key, u, marks),
          ],
        },
      },
      data,
      plot,
    );
    onPlotClick(u, () => this.pick(key, u));
    u.over.appendChild(marks);
    this.ro.observe(plot);
    return { key, marks, caption, title, card, plot, u };
  }

  private clear(): void {
    for (const p of this.panels.values()) {
      this.ro.unobserve(p.plot);
      p.u.destroy();
      p.card.remove();
    }
    this.panels.clear();
  }
}
