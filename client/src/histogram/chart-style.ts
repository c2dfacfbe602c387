// What every uPlot chart on the page shares: theme colours read from the
// page's CSS variables (so light and dark follow the system), axis styling,
// latency tick labels and sizing to the card they live in.
import type uPlot from "uplot";
import { formatMs } from "../../../shared/format.js";

export interface ChartTheme {
  fg: string;
  muted: string;
  grid: string;
  bg: string;
  accent: string;
  font: string;
}

export function readTheme(): ChartTheme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  const family = css.fontFamily || "system-ui, sans-serif";
  return {
    fg: v("--fg", "#1d2330"),
    muted: v("--muted", "#5b6475"),
    grid: v("--grid", "rgba(128,128,128,0.18)"),
    bg: v("--bg", "#ffffff"),
    accent: v("--accent", "#0a62c9"),
    font: `12px ${family}`,
  };
}

/** An axis in the page's colours; `label` must carry the unit. */
export function axis(theme: ChartTheme, label: string, extra: uPlot.Axis = {}): uPlot.Axis {
  return {
    stroke: theme.muted,
    font: theme.font,
    labelFont: `600 ${theme.font}`,
    label,
    labelSize: 18,
    grid: { stroke: theme.grid, width: 1 },
    ticks: { stroke: theme.grid, width: 1, size: 4 },
    ...extra,
  };
}

/** Tick labels for a latency axis in ms: "1 ms", "10 ms", "1 s". */
export function latencyTicks(_u: uPlot, splits: (number | null)[]): string[] {
  // uPlot passes null for splits it has no room to label.
  return splits.map((v) =>
    v === null ? "" : v >= 1000 ? `${+(v / 1000).toPrecision(3)} s` : `${+v.toPrecision(3)} ms`,
  );
}

/** Legend value of a latency. */
export function latencyValue(_u: uPlot, v: number | null): string {
  return v === null ? "–" : formatMs(v);
}

/** Width of a chart's card minus padding, never below a phone's minimum. */
export function widthOf(el: HTMLElement): number {
  return Math.max(260, Math.floor(el.clientWidth));
}

/** Redraws a chart at its card's width whenever the card is resized. */
export function followWidth(host: HTMLElement, get: () => uPlot | null, height: () => number): ResizeObserver {
  const ro = new ResizeObserver(() => {
    const u = get();
    if (u !== null) u.setSize({ width: widthOf(host), height: height() });
  });
  ro.observe(host);
  return ro;
}

/** Phones get shorter charts so two fit on a screen. */
export function chartHeight(desktopPx: number): number {
  return window.matchMedia("(max-width: 640px)").matches ? Math.round(desktopPx * 0.75) : desktopPx;
}

/** Time tick labels in local time, short enough for a phone. */
export function timeTicks(_u: uPlot, splits: (number | null)[], _ax: number, _space: number, incr: number): string[] {
  return splits.map((t) => {
    if (t === null) return "";
    const d = new Date(t);
    const hm = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
    if (incr < 60_000) return `${hm}:${String(d.getSeconds()).padStart(2, "0")}`;
    if (incr >= 86_400_000) return `${d.getMonth() + 1}/${d.getDate()}`;
    return hm;
  });
}

/** Legend markers drawn dashed for dashed series, so the legend tells servers apart too. */
export const DASHED_LEGEND: uPlot.Legend = {
  live: true,
  markers: { dash: (u, i) => ((u.series[i]?.dash?.length ?? 0) > 0 ? "dashed" : "solid") },
};

/**
 * Names only, no live values (the table holds the numbers): with a dozen
 * series a live legend grew taller than its chart. Clicking a name hides or
 * draws its series, and the choice survives the page's refreshes.
 */
export const NAMES_LEGEND: uPlot.Legend = { ...DASHED_LEGEND, live: false };

/** Baselines a first look does not need beside ping; the table lists them all. */
const DRAWN_ON_CLICK = new Set(["wsping", "tcprtt", "tcpminrtt"]);

/**
 * Whether the histogram and tail charts draw a series before anyone clicks its
 * legend entry: the browser's methods and ping answer "browser or network?" at
 * a glance; the other baselines are one click away. When only those were
 * chosen, they are drawn.
 */
export function drawnAtFirst(method: string, methodsShown: readonly string[]): boolean {
  return !DRAWN_ON_CLICK.has(method) || methodsShown.every((m) => DRAWN_ON_CLICK.has(m));
}
