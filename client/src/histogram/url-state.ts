// The whole view in the URL: range, series, options and focus window, so a
// view can be shared, bookmarked and survives a reload. Query parameters use
// the API's own filter names where they mean the same thing; defaults are
// left out so a newcomer's URL stays short.
import { LOAD_VALUES } from "../../../shared/stress/phases.js";
import { readRange, writeRange, type RangeState } from "./range.js";

export type HistogramScale = "count" | "share";

/** A time window in epoch ms, from ≤ to. */
export interface TimeWindow {
  fromMs: number;
  toMs: number;
}

export interface ViewState {
  range: RangeState;
  /** Methods to show; empty = all. */
  methods: string[];
  /** Servers (targets) to show; empty = all. */
  targets: string[];
  /** One client's public id, or null for every client. */
  client: string | null;
  /** Only samples sent and answered while the tab was visible. */
  visibleOnly: boolean;
  /** Only samples whose tick fired at most this late (ms); null = no limit. */
  maxLateMs: number | null;
  /** Timeouts enter the latency figures at their timeout value (`timeouts=1`). */
  timeoutsInTail: boolean;
  /** Stress-test phases to keep (`load=`; "none": outside any test); empty = all samples. */
  loads: string[];
  /** Histogram y axis: raw counts or share of each series' samples. */
  histScale: HistogramScale;
  /** Window dragged on a time chart; null = none. */
  focus: TimeWindow | null;
  /** true: table, histogram and CDF show everything EXCEPT the focus window. */
  invert: boolean;
  /** Series the heatmap shows ("method@target"); null = the first one shown. */
  heat: string | null;
}

export const DEFAULT_VIEW: ViewState = {
  range: { preset: "1h" },
  methods: [],
  targets: [],
  client: null,
  visibleOnly: false,
  maxLateMs: null,
  timeoutsInTail: false,
  loads: [],
  histScale: "count",
  focus: null,
  invert: false,
  heat: null,
};

/** Upper bound of maxLateMs accepted from a URL: one minute. */
export const MAX_LATE_MS_MAX = 60_000;

const LIST_ITEM = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,64}$/;
const CLIENT = /^[A-Za-z0-9_-]{8,64}$/;
const HEAT = /^[a-z0-9]{1,16}@[A-Za-z0-9][A-Za-z0-9_.+-]{0,64}$/;

function readList(q: URLSearchParams, key: string): string[] {
  const raw = q.get(key);
  if (raw === null) return [];
  // Anything odd is dropped rather than trusted: a hand-edited URL must not break the page.
  return [...new Set(raw.split(",").filter((s) => LIST_ITEM.test(s)))].slice(0, 16);
}

function readWindow(raw: string | null): TimeWindow | null {
  if (raw === null) return null;
  const m = /^(\d{1,16})-(\d{1,16})$/.exec(raw);
  if (!m) return null;
  const fromMs = Number(m[1]);
  const toMs = Number(m[2]);
  return fromMs < toMs ? { fromMs, toMs } : null;
}

/** Parses a location.search; never throws, falls back to defaults per field. */
export function readView(search: string): ViewState {
  const q = new URLSearchParams(search);
  const late = q.get("maxLateMs");
  const lateMs = late !== null && /^\d{1,6}$/.test(late) ? Math.min(Number(late), MAX_LATE_MS_MAX) : null;
  const client = q.get("client");
  const heat = q.get("heat");
  const focus = readWindow(q.get("focus"));
  return {
    range: readRange(search),
    methods: readList(q, "method"),
    targets: readList(q, "target"),
    client: client !== null && CLIENT.test(client) ? client : null,
    visibleOnly: q.get("visible") === "1",
    maxLateMs: lateMs,
    timeoutsInTail: q.get("timeouts") === "1",
    loads: readList(q, "load").filter((x) => (LOAD_VALUES as readonly string[]).includes(x)),
    histScale: q.get("hist") === "share" ? "share" : "count",
    focus,
    invert: focus !== null && q.get("invert") === "1",
    heat: heat !== null && HEAT.test(heat) ? heat : null,
  };
}

/**
 * Adds the view's series and sample filters to `q`, those not at their
 * default. The page's URL and the API's query strings name them alike, so a
 * filter added here reaches both.
 */
export function setSampleFilters(q: URLSearchParams, v: ViewState): void {
  if (v.methods.length > 0) q.set("method", v.methods.join(","));
  if (v.targets.length > 0) q.set("target", v.targets.join(","));
  if (v.client !== null) q.set("client", v.client);
  if (v.visibleOnly) q.set("visible", "1");
  if (v.maxLateMs !== null) q.set("maxLateMs", String(v.maxLateMs));
  if (v.timeoutsInTail) q.set("timeouts", "1");
  if (v.loads.length > 0) q.set("load", v.loads.join(","));
}

/** Serialises a view; parameters at their default are omitted. Order is fixed so URLs compare equal. */
export function writeView(v: ViewState): string {
  const q = new URLSearchParams(writeRange(v.range, ""));
  setSampleFilters(q, v);
  if (v.histScale !== "count") q.set("hist", v.histScale);
  if (v.focus !== null) {
    q.set("focus", `${Math.round(v.focus.fromMs)}-${Math.round(v.focus.toMs)}`);
    if (v.invert) q.set("invert", "1");
  }
  if (v.heat !== null) q.set("heat", v.heat);
  return `?${q.toString().replaceAll("%2C", ",").replaceAll("%40", "@")}`;
}

export function seriesId(method: string, target: string): string {
  return `${method}@${target}`;
}
