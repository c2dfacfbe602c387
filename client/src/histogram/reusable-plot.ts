// A uPlot that lives across the page's refreshes: rebuilt only when its shape
// (which series, which options, the theme) changes, otherwise handed the new
// data, so a zoom the user dragged survives a live refresh (and a rebuild: it
// is carried over) until they double-click it away. The histogram and the CDF share this.
import uPlot from "uplot";
import { chartHeight, followWidth } from "./chart-style.js";

export class ReusablePlot {
  private u: uPlot | null = null;
  private shapeKey = "";
  private zoomed = false;

  constructor(
    private readonly host: HTMLElement,
    heightPx: number,
  ) {
    followWidth(
      host,
      () => this.u,
      () => chartHeight(heightPx),
    );
  }

  /**
   * Shows `data`. `shape` names everything the options depend on besides the
   * theme; `options` builds them, called only when the plot is (re)built.
   */
  show(shape: string, data: uPlot.AlignedData, options: () => uPlot.Options): void {
    const key = `${shape}|${document.documentElement.dataset.theme ?? ""}`;
    if (this.u !== null && key === this.shapeKey) {
      this.u.setData(data, !this.zoomed);
      return;
    }
    // A series joining or leaving (a server's own probes of its peer start
    // minutes after the page) rebuilds the plot; the latency range the user
    // zoomed to is the same axis in the new one, so it carries over.
    const x = this.zoomed ? this.u?.scales.x : undefined;
    const keptX = x?.min != null && x.max != null ? { min: x.min, max: x.max } : null;
    this.u?.destroy();
    this.shapeKey = key;
    this.zoomed = false;
    const opts = options();
    const trackZoom = (u: uPlot) => void (this.zoomed = u.select.width > 0 || this.zoomed);
    opts.hooks = { ...opts.hooks, setSelect: [...(opts.hooks?.setSelect ?? []), trackZoom] };
    this.u = new uPlot(opts, data, this.host);
    this.u.over.addEventListener("dblclick", () => void (this.zoomed = false));
    if (keptX !== null) {
      this.u.setScale("x", keptX);
      this.zoomed = true;
    }
  }
}

/** The shape key part naming a response's series, in order. */
export function seriesShape(series: readonly { method: string; target: string }[]): string {
  return series.map((s) => `${s.method}@${s.target}`).join(",");
}
