// From a view to the query strings of the endpoints. Two populations:
// time charts always show the whole range (so the focus window can be seen
// and moved), while the table, histogram and CDF show the focus window, or
// with "invert" everything in the range except it.
import { chooseBucketMs, EPOCH_MS_MIN } from "../../../shared/contract/index.js";
import { resolveRange } from "./range.js";
import { HEATMAP_BINS_PER_DECADE, HEATMAP_BUCKETS_TARGET, TIMESERIES_BUCKETS_TARGET } from "./transforms.js";
import { setSampleFilters, type TimeWindow, type ViewState } from "./url-state.js";

export interface Populations {
  /** What the time charts (latency over time, heatmap) cover. */
  timeline: URLSearchParams;
  /** What the table, histogram and CDF summarise. */
  summary: URLSearchParams;
  /** The resolved range (epoch ms). */
  range: TimeWindow;
  /** The summary's window in words, for the caption. */
  summaryWindow: { kind: "range" | "focus" | "except"; window: TimeWindow };
}

/** The focus window clipped to the range; null when they do not overlap. */
export function clipWindow(focus: TimeWindow, range: TimeWindow): TimeWindow | null {
  const fromMs = Math.max(focus.fromMs, range.fromMs);
  const toMs = Math.min(focus.toMs, range.toMs);
  return fromMs < toMs ? { fromMs, toMs } : null;
}

function baseFilters(v: ViewState, w: TimeWindow): URLSearchParams {
  const q = new URLSearchParams();
  q.set("from", String(Math.floor(w.fromMs)));
  q.set("to", String(Math.ceil(w.toMs)));
  setSampleFilters(q, v);
  return q;
}

export function populations(v: ViewState, nowMs: number): Populations {
  const r = resolveRange(v.range, nowMs);
  const range = { fromMs: r.fromMs, toMs: r.toMs };
  const timeline = baseFilters(v, range);
  const focus = v.focus === null ? null : clipWindow(v.focus, range);
  if (focus === null)
    return { timeline, summary: baseFilters(v, range), range, summaryWindow: { kind: "range", window: range } };
  if (v.invert) {
    const summary = baseFilters(v, range);
    summary.set("exclude", `${Math.floor(focus.fromMs)}-${Math.ceil(focus.toMs)}`);
    return { timeline, summary, range, summaryWindow: { kind: "except", window: focus } };
  }
  return { timeline, summary: baseFilters(v, focus), range, summaryWindow: { kind: "focus", window: focus } };
}

/**
 * A drag's pixel span turned into a focus window. Spans narrower than
 * `minWidthPx` are clicks, not selections, and clear nothing.
 */
export function windowFromDrag(leftVal: number, rightVal: number, widthPx: number, minWidthPx = 3): TimeWindow | null {
  if (widthPx < minWidthPx || !Number.isFinite(leftVal) || !Number.isFinite(rightVal)) return null;
  const fromMs = Math.round(Math.min(leftVal, rightVal));
  const toMs = Math.round(Math.max(leftVal, rightVal));
  return fromMs < toMs ? { fromMs, toMs } : null;
}

/**
 * "All" starts at the beginning of time; the server then starts the axis at
 * the first stored sample and picks the bucket width itself, which the page
 * cannot do without knowing that sample.
 */
function openEnded(p: Populations): boolean {
  return p.range.fromMs < EPOCH_MS_MIN;
}

/** /api/timeseries query: the timeline with a bucket width giving ~120 columns. */
export function timeseriesQuery(p: Populations): URLSearchParams {
  const q = new URLSearchParams(p.timeline);
  if (!openEnded(p))
    q.set("bucketMs", String(chooseBucketMs(p.range.toMs - p.range.fromMs, TIMESERIES_BUCKETS_TARGET)));
  return q;
}

/** /api/heatmap query for one series: coarser columns and bins than the panels, so cells hold several samples. */
export function heatmapQuery(p: Populations, method: string, target: string): URLSearchParams {
  const q = new URLSearchParams(p.timeline);
  q.set("method", method);
  q.set("target", target);
  if (!openEnded(p)) q.set("bucketMs", String(chooseBucketMs(p.range.toMs - p.range.fromMs, HEATMAP_BUCKETS_TARGET)));
  q.set("binsPerDecade", String(HEATMAP_BINS_PER_DECADE));
  return q;
}
