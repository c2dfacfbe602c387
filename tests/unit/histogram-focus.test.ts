// The focus window: a drag picks it, the table/histogram/CDF query covers it
// (or, inverted, the range without it) while the time charts keep the range.
import { describe, expect, it } from "vitest";
import {
  clipWindow,
  heatmapQuery,
  populations,
  timeseriesQuery,
  windowFromDrag,
} from "../../client/src/histogram/queries.js";
import { DEFAULT_VIEW, type ViewState } from "../../client/src/histogram/url-state.js";
import { clientLabel, listFilter, PICKER_METHODS } from "../../client/src/histogram/picker.js";
import { describeBucket } from "../../client/src/histogram/range-controls.js";
import { timeseriesQuerySchema, heatmapQuerySchema, histogramQuerySchema } from "../../shared/contract/index.js";

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;
const spike = { fromMs: NOW - 30 * 60_000, toMs: NOW - 29 * 60_000 };

const view = (patch: Partial<ViewState>): ViewState => ({ ...DEFAULT_VIEW, ...patch });
const asObject = (q: URLSearchParams) => Object.fromEntries(q.entries());

describe("focus window and invert", () => {
  it("without a focus, summary and timeline cover the same range", () => {
    const p = populations(DEFAULT_VIEW, NOW);
    expect(p.range).toEqual({ fromMs: NOW - HOUR, toMs: NOW });
    expect(asObject(p.summary)).toEqual({ from: String(NOW - HOUR), to: String(NOW) });
    expect(asObject(p.timeline)).toEqual(asObject(p.summary));
    expect(p.summaryWindow.kind).toBe("range");
  });

  it("a focus narrows only the summary", () => {
    const p = populations(view({ focus: spike }), NOW);
    expect(asObject(p.summary)).toEqual({ from: String(spike.fromMs), to: String(spike.toMs) });
    expect(asObject(p.timeline)).toEqual({ from: String(NOW - HOUR), to: String(NOW) });
    expect(p.summaryWindow).toEqual({ kind: "focus", window: spike });
  });

  it("invert keeps the whole range and excludes the window", () => {
    const p = populations(view({ focus: spike, invert: true, methods: ["xhr"], visibleOnly: true }), NOW);
    expect(asObject(p.summary)).toEqual({
      from: String(NOW - HOUR),
      to: String(NOW),
      method: "xhr",
      visible: "1",
      exclude: `${spike.fromMs}-${spike.toMs}`,
    });
    expect(p.summary.has("exclude")).toBe(true);
    expect(p.timeline.has("exclude")).toBe(false);
    expect(p.summaryWindow.kind).toBe("except");
    // The server's own schema accepts what the page sends.
    const parsed = histogramQuerySchema.safeParse(asObject(p.summary));
    expect(parsed.success).toBe(true);
    expect(parsed.data?.exclude).toEqual([spike]);
  });

  it("a focus outside the range is ignored, one overlapping it is clipped", () => {
    const old = { fromMs: NOW - 3 * HOUR, toMs: NOW - 2 * HOUR };
    expect(populations(view({ focus: old, invert: true }), NOW).summaryWindow.kind).toBe("range");
    const straddling = { fromMs: NOW - HOUR - 60_000, toMs: NOW - HOUR + 60_000 };
    expect(clipWindow(straddling, { fromMs: NOW - HOUR, toMs: NOW })).toEqual({
      fromMs: NOW - HOUR,
      toMs: NOW - HOUR + 60_000,
    });
  });

  it("a drag becomes a window; a click does not", () => {
    expect(windowFromDrag(2000.4, 1000.6, 40)).toEqual({ fromMs: 1001, toMs: 2000 });
    expect(windowFromDrag(1000, 2000, 2)).toBeNull();
    expect(windowFromDrag(Number.NaN, 2000, 40)).toBeNull();
  });

  it("filters and bucket widths reach the chart queries and stay within the contract", () => {
    const p = populations(view({ targets: ["A", "A+B"], maxLateMs: 100, client: "client-0001" }), NOW);
    const ts = timeseriesQuerySchema.safeParse(asObject(timeseriesQuery(p)));
    expect(ts.success, JSON.stringify(ts.error?.issues)).toBe(true);
    expect(ts.data?.target).toEqual(["A", "A+B"]);
    expect(ts.data?.maxLateMs).toBe(100);
    // An hour in ~120 buckets: 30 s each.
    expect(ts.data?.bucketMs).toBe(30_000);
    const hm = heatmapQuerySchema.safeParse(asObject(heatmapQuery(p, "ws", "B")));
    expect(hm.success, JSON.stringify(hm.error?.issues)).toBe(true);
    expect(hm.data?.method).toEqual(["ws"]);
    expect(hm.data?.target).toEqual(["B"]);
    expect(hm.data?.bucketMs).toBe(60_000);
    expect(hm.data?.binsPerDecade).toBe(10);
  });

  it('"all" leaves the bucket width to the server, which starts the axis at the first sample', () => {
    const p = populations(view({ range: { preset: "all" } }), NOW);
    expect(p.timeline.get("from")).toBe("0");
    expect(timeseriesQuery(p).has("bucketMs")).toBe(false);
    expect(heatmapQuery(p, "ws", "A").has("bucketMs")).toBe(false);
    expect(heatmapQuery(p, "ws", "A").get("binsPerDecade")).toBe("10");
  });

  it("bucket widths read as words under the time charts", () => {
    expect([5_000, 30_000, 120_000, 900_000, 21_600_000, 86_400_000].map(describeBucket)).toEqual([
      "5 s",
      "30 s",
      "2 min",
      "15 min",
      "6 h",
      "1 day",
    ]);
  });

  it("the client picker names a client by label and browser family, and offers every series the API filters on", () => {
    const base = { id: "abcdef0123456789", firstSeen: 0, lastSeen: 0, sessions: 1 };
    expect(clientLabel({ ...base, label: "office-laptop", browser: "Firefox" })).toBe("office-laptop — Firefox");
    expect(clientLabel({ ...base, label: null, browser: null })).toBe("abcdef01");
    expect(PICKER_METHODS).toEqual([
      "xhr",
      "jsonp",
      "ws",
      "best2",
      "ping",
      "wsping",
      "tcprtt",
      "tcpminrtt",
      "peerhttp",
      "peerws",
    ]);
  });

  it("ticking every box in the picker means no filter, so new series still appear", () => {
    expect(listFilter(["A", "B"], ["A", "B"])).toEqual([]);
    expect(listFilter(["B"], ["A", "B"])).toEqual(["B"]);
  });
});
