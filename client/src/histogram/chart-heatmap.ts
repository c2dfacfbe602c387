// Heatmap of one series: time × log latency, colour = samples per cell, the
// modern form of SmokePing's smoke. Cells are painted on uPlot's canvas in a
// draw hook; uPlot supplies the axes, cursor sync and the focus drag.
import uPlot from "uplot";
import type { HeatmapResponse } from "../../../shared/contract/index.js";
import { formatCount, formatMs } from "../../../shared/format.js";
import { axis, chartHeight, followWidth, latencyTicks, readTheme, timeTicks, widthOf } from "./chart-style.js";
import { onPlotClick, type OnPick } from "./pick.js";
import { focusHooks, type FocusSource } from "./focus-band.js";
import { heatColour } from "./palette.js";
import { TIME_SYNC } from "./chart-timeseries.js";
import { heatmapCells, heatmapLatencyRange, type HeatCell } from "./transforms.js";
import type { TimeWindow } from "./url-state.js";

const HEIGHT_PX = 260;

export class HeatmapChart {
  private u: uPlot | null = null;
  private cells: HeatCell[] = [];
  private maxCount = 0;
  private latency: [number, number] = [1, 1000];
  private range: TimeWindow = { fromMs: 0, toMs: 1 };
  private themeKey = "";
  private readonly readout = Object.assign(document.createElement("span"), { className: "heat-readout" });

  /** The series shown, for a click's "why?". */
  private series: { method: string; target: string } | null = null;

  constructor(
    private readonly host: HTMLElement,
    private readonly scaleHost: HTMLElement,
    private readonly focus: FocusSource,
    private readonly onPick?: OnPick,
  ) {
    followWidth(
      host,
      () => this.u,
      () => chartHeight(HEIGHT_PX),
    );
  }

  update(h: HeatmapResponse, index: number, range: TimeWindow): void {
    const { cells, maxCount } = heatmapCells(h, index);
    this.series = h.series[index] ?? null;
    this.cells = cells;
    this.maxCount = maxCount;
    this.latency = heatmapLatencyRange(cells);
    this.range = range;
    this.renderScale();
    // A null series gives uPlot something to sync the cursor on; cells are drawn in the hook.
    const data: uPlot.AlignedData = [h.t, h.t.map(() => null)];
    const theme = document.documentElement.dataset.theme ?? "";
    if (this.u !== null && theme === this.themeKey) {
      this.u.setData(data, false);
      this.u.setScale("x", { min: range.fromMs, max: range.toMs });
      this.u.setScale("y", { min: this.latency[0], max: this.latency[1] });
      return;
    }
    this.u?.destroy();
    this.themeKey = theme;
    this.u = this.create(data);
    this.u.over.addEventListener("mouseleave", () => void (this.readout.textContent = ""));
    onPlotClick(this.u, (u) => this.pick(u));
  }

  redraw(): void {
    this.u?.redraw(false, false);
  }

  private create(data: uPlot.AlignedData): uPlot {
    const theme = readTheme();
    const band = focusHooks(this.focus);
    return new uPlot(
      {
        ms: 1,
        width: widthOf(this.host),
        height: chartHeight(HEIGHT_PX),
        scales: {
          x: { time: true, range: () => [this.range.fromMs, this.range.toMs] },
          y: { distr: 3, log: 10, range: () => this.latency },
        },
        axes: [
          axis(theme, "local time", { values: timeTicks }),
          axis(theme, "latency (ms, log)", { values: latencyTicks, size: 56 }),
        ],
        legend: { show: false },
        cursor: { sync: TIME_SYNC, drag: { x: true, y: false, setScale: false }, points: { show: false } },
        series: [{}, { label: "cells", stroke: "transparent", points: { show: false } }],
        hooks: {
          setCursor: [(u) => this.showCell(u)],
          drawClear: [(u) => this.drawCells(u)],
          setSelect: band.setSelect,
          draw: band.draw,
        },
      },
      data,
      this.host,
    );
  }

  /** A click on a cell: the slowest sample in it. */
  private pick(u: uPlot): void {
    const { left, top } = u.cursor;
    if (this.onPick === undefined || this.series === null || left === undefined || top === undefined) return;
    const t = u.posToVal(left, "x");
    const ms = u.posToVal(top, "y");
    const c = this.cells.find((x) => t >= x.t0 && t < x.t1 && ms >= x.ms0 && ms < x.ms1);
    if (c === undefined) return;
    this.onPick({
      ...this.series,
      fromMs: c.t0,
      toMs: c.t1 - 1,
      msMin: c.ms0,
      msMax: c.ms1,
      where: `the heatmap cell ${new Date(c.t0).toLocaleTimeString()}, ${formatMs(c.ms0)}–${formatMs(c.ms1)}`,
    });
  }

  /** The cell under the pointer, in words: the heatmap has no legend to read values from. */
  private showCell(u: uPlot): void {
    const { left, top } = u.cursor;
    const readout = this.readout;
    // uPlot also hides the cursor when new data arrives; only a real mouseleave clears the readout.
    if (left === undefined || top === undefined || left < 0 || top < 0) return;
    const t = u.posToVal(left, "x");
    const ms = u.posToVal(top, "y");
    const c = this.cells.find((x) => t >= x.t0 && t < x.t1 && ms >= x.ms0 && ms < x.ms1);
    readout.textContent = c
      ? `${new Date(c.t0).toLocaleTimeString()} · ${formatMs(c.ms0)}–${formatMs(c.ms1)}: ${formatCount(c.count)} sample${c.count === 1 ? "" : "s"}`
      : `${new Date(t).toLocaleTimeString()} · ${formatMs(ms)}: none`;
  }

  private drawCells(u: uPlot): void {
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    for (const c of this.cells) {
      const x0 = u.valToPos(c.t0, "x", true);
      const x1 = u.valToPos(c.t1, "x", true);
      const y0 = u.valToPos(c.ms0, "y", true);
      const y1 = u.valToPos(c.ms1, "y", true);
      ctx.fillStyle = heatColour(c.count, this.maxCount);
      // +0.5 px overlap hides hairline seams between neighbouring cells.
      ctx.fillRect(x0, Math.min(y0, y1), Math.max(1, x1 - x0 + 0.5), Math.max(1, Math.abs(y1 - y0) + 0.5));
    }
    ctx.restore();
  }

  /** The colour key under the chart: what 1 and the maximum look like. */
  private renderScale(): void {
    // No cell to read a colour from: a ramp from 1 to 1 would say nothing.
    if (this.maxCount === 0)
      return this.scaleHost.replaceChildren(document.createTextNode("no samples in this range"), this.readout);
    const top = this.maxCount;
    const stops = [0, 0.25, 0.5, 0.75, 1].map((k) => heatColour(top ** k, top));
    const bar = document.createElement("span");
    bar.className = "heat-ramp";
    bar.style.background = `linear-gradient(to right, ${stops.join(", ")})`;
    this.scaleHost.replaceChildren(
      document.createTextNode("samples per cell: 1 "),
      bar,
      document.createTextNode(` ${formatCount(top)} (log colour scale)`),
      // The same element across refreshes: a live refresh must not blank what the pointer reads.
      this.readout,
    );
  }
}
