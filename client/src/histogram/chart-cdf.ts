// The cumulative distribution with its tail magnified: y = 1 − F on a log
// axis, so p90, p99, p99.9 and p99.99 sit a decade apart instead of in the
// last pixel, with the table's percentiles marked on each curve (hollow when
// too few samples back them).
import uPlot from "uplot";
import type { CdfResponse } from "../../../shared/contract/index.js";
import {
  axis,
  chartHeight,
  drawnAtFirst,
  latencyTicks,
  latencyValue,
  NAMES_LEGEND,
  readTheme,
  widthOf,
} from "./chart-style.js";
import { methodColour, targetDash } from "./palette.js";
import { onPlotClick, type OnPick } from "./pick.js";
import { ReusablePlot, seriesShape } from "./reusable-plot.js";
import { seriesLabel } from "./series-label.js";
import { cdfColumns, isThin, tailOfPercentile } from "./transforms.js";

const HEIGHT_PX = 300;
const MARKER_RADIUS_PX = 4;

/** "0.01" → "p99": the percentile a 1 − F height stands for. */
function percentileTick(v: number | null): string {
  if (v === null) return "";
  if (v >= 1) return "min";
  const p = 100 * (1 - v);
  return `p${+p.toPrecision(6)}`;
}

export class CdfChart {
  private readonly plot: ReusablePlot;
  private cdf: CdfResponse | null = null;

  constructor(
    private readonly host: HTMLElement,
    private readonly onPick?: OnPick,
  ) {
    this.plot = new ReusablePlot(host, HEIGHT_PX);
  }

  update(c: CdfResponse, targets: readonly string[]): void {
    this.cdf = c;
    this.plot.show(seriesShape(c.series), cdfColumns(c) as uPlot.AlignedData, () => this.options(c, targets));
  }

  private options(c: CdfResponse, targets: readonly string[]): uPlot.Options {
    const theme = readTheme();
    return {
      width: widthOf(this.host),
      height: chartHeight(HEIGHT_PX),
      scales: {
        x: { time: false, distr: 3, log: 10 },
        y: {
          distr: 3,
          log: 10,
          range: (_u, min) => [Math.min(0.1, 10 ** Math.floor(Math.log10(Math.max(min, 1e-7)))), 1],
        },
      },
      axes: [
        axis(theme, "latency (ms, log scale)", { values: latencyTicks }),
        axis(theme, "share slower (1 − F, log)", {
          values: (_u, splits) => splits.map(percentileTick),
          size: 60,
        }),
      ],
      cursor: { drag: { x: true, y: false, setScale: true } },
      legend: NAMES_LEGEND,
      series: [
        { label: "latency", value: latencyValue },
        ...c.series.map((s) => ({
          label: seriesLabel(s.method, s.target),
          show: drawnAtFirst(
            s.method,
            c.series.map((x) => x.method),
          ),
          stroke: methodColour(s.method),
          dash: targetDash(s.target, targets),
          width: 2,
          spanGaps: true,
          points: { show: false },
          value: (_u: uPlot, v: number | null) => (v === null ? "–" : `${+(100 * v).toPrecision(3)}% slower`),
        })),
      ],
      hooks: {
        draw: [(u) => this.drawMarkers(u)],
        ready: [(u) => onPlotClick(u, () => this.pick(u))],
      },
    };
  }

  /** A click on the tail: the shown series whose curve passes nearest the pointer, at the latency under it. */
  private pick(u: uPlot): void {
    const c = this.cdf;
    const idx = u.cursor.idx;
    const top = u.cursor.top;
    if (c === null || this.onPick === undefined || idx === null || idx === undefined || top === undefined) return;
    const ms = u.data[0][idx];
    let best = -1;
    let bestPx = Infinity;
    c.series.forEach((_s, i) => {
      const y = u.data[i + 1]?.[idx];
      if (!u.series[i + 1]?.show || y === null || y === undefined) return;
      const px = Math.abs(u.valToPos(y, "y") - top);
      if (px < bestPx) (bestPx = px), (best = i);
    });
    const s = c.series[best];
    if (s === undefined || ms === undefined) return;
    this.onPick({ method: s.method, target: s.target, ms, where: `the tail chart at ${+ms.toPrecision(4)} ms` });
  }

  private drawMarkers(u: uPlot): void {
    const c = this.cdf;
    if (c === null) return;
    const ctx = u.ctx;
    const r = MARKER_RADIUS_PX * uPlot.pxRatio;
    ctx.save();
    ctx.lineWidth = 1.5 * uPlot.pxRatio;
    c.series.forEach((s, i) => {
      if (!u.series[i + 1]?.show) return;
      const colour = methodColour(s.method);
      for (const m of s.markers ?? []) {
        const x = u.valToPos(m.ms, "x", true);
        const y = u.valToPos(Math.max(tailOfPercentile(m.p), 0.5 / Math.max(1, s.count)), "y", true);
        if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
        ctx.beginPath();
        ctx.arc(x, y, r, 0, 2 * Math.PI);
        ctx.strokeStyle = colour;
        ctx.fillStyle = colour;
        // Hollow = thin: fewer than 10 samples beyond it, the table marks it too.
        if (isThin(m.p, s.count)) ctx.stroke();
        else ctx.fill();
      }
    });
    ctx.restore();
  }
}
