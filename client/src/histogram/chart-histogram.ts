// Latency histogram on a log axis: one stepped line per (method, server),
// overlaid so XHR, JSONP, WebSocket and ping on one server compare by shape.
import uPlot from "uplot";
import type { HistogramResponse } from "../../../shared/contract/index.js";
import { formatCount } from "../../../shared/format.js";
import { axis, chartHeight, drawnAtFirst, latencyTicks, NAMES_LEGEND, readTheme, widthOf } from "./chart-style.js";
import { methodColour, targetDash } from "./palette.js";
import { ReusablePlot, seriesShape } from "./reusable-plot.js";
import { seriesLabel } from "./series-label.js";
import { histogramColumns } from "./transforms.js";
import type { HistogramScale } from "./url-state.js";

const HEIGHT_PX = 300;

export class HistogramChart {
  private readonly plot: ReusablePlot;

  constructor(private readonly host: HTMLElement) {
    this.plot = new ReusablePlot(host, HEIGHT_PX);
  }

  update(
    h: HistogramResponse,
    scale: HistogramScale,
    targets: readonly string[],
    stepMsOf?: (method: string, target: string) => number | null,
  ): void {
    const data = histogramColumns(h, scale, stepMsOf) as uPlot.AlignedData;
    this.plot.show(`${scale}|${seriesShape(h.series)}`, data, () => this.options(h, scale, targets));
  }

  private options(h: HistogramResponse, scale: HistogramScale, targets: readonly string[]): uPlot.Options {
    const theme = readTheme();
    const share = scale === "share";
    return {
      width: widthOf(this.host),
      height: chartHeight(HEIGHT_PX),
      scales: { x: { time: false, distr: 3, log: 10 }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] } },
      axes: [
        axis(theme, "latency (ms, log scale)", { values: latencyTicks }),
        axis(theme, share ? "share of samples (%)" : "samples per bin", {
          values: (_u, splits) =>
            splits.map((v) => (v === null ? "" : share ? `${+(v * 100).toPrecision(3)}%` : formatCount(v))),
          size: 56,
        }),
      ],
      cursor: { drag: { x: true, y: false, setScale: true } },
      legend: NAMES_LEGEND,
      series: [
        { label: "latency", value: (_u, v) => (v === null ? "–" : `≥ ${+v.toPrecision(3)} ms`) },
        ...h.series.map((s) => ({
          label: seriesLabel(s.method, s.target),
          show: drawnAtFirst(
            s.method,
            h.series.map((x) => x.method),
          ),
          stroke: methodColour(s.method),
          dash: targetDash(s.target, targets),
          width: 2,
          paths: uPlot.paths.stepped!({ align: 1 }),
          points: { show: false },
          value: (_u: uPlot, v: number | null) =>
            v === null ? "–" : share ? `${(v * 100).toFixed(2)}%` : formatCount(v),
        })),
      ],
      hooks: {
        // The visible latency range, readable from outside (tests check a refresh keeps a zoom).
        setScale: [
          (u, key) => void (key === "x" && (this.host.dataset.xRange = `${u.scales.x!.min}-${u.scales.x!.max}`)),
        ],
      },
    };
  }
}
