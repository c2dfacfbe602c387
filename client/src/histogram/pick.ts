// A click on a chart that asks "why?": which series, and which sample of it
// (a latency on the tail chart) or which window (a heatmap cell, a time
// bucket). The attribution panel turns it into a GET /api/attribution.
import type uPlot from "uplot";

export interface ChartPick {
  method: string;
  target: string;
  /** The bucket or cell's time window (epoch ms, inclusive); absent: the chart's own population. */
  fromMs?: number;
  toMs?: number;
  /** The sample nearest this latency (ms): a point on the tail chart. */
  ms?: number;
  /** The slowest sample with latency in [msMin, msMax): a heatmap cell. */
  msMin?: number;
  msMax?: number;
  /** Where the click came from, in words, for the panel's heading. */
  where: string;
}

export type OnPick = (pick: ChartPick) => void;

/** Pointer travel (px) beyond which a press is a drag (the focus window), not a click. */
const CLICK_SLOP_PX = 4;

/** Calls `onClick` for clicks on the plot area, but not at the end of a drag. */
export function onPlotClick(u: uPlot, onClick: (u: uPlot) => void): void {
  let downX = Number.NaN;
  u.over.addEventListener("mousedown", (e) => void (downX = e.clientX));
  u.over.addEventListener("click", (e) => {
    if (Math.abs(e.clientX - downX) > CLICK_SLOP_PX) return;
    onClick(u);
  });
}
