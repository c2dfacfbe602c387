// Endpoint answers → uPlot's columns, checked against what the charts must
// show: bin heights and shares, 1 − F for the tail view, per-bucket panel
// columns and heatmap cells.
import { describe, expect, it } from "vitest";
import {
  type CdfResponse,
  type HeatmapResponse,
  type HistogramResponse,
  type TimeseriesResponse,
  binEdge,
} from "../../shared/contract/index.js";
import { percentileSorted } from "../../shared/stats.js";
import {
  alignSeries,
  cdfColumns,
  heatmapCells,
  heatmapLatencyRange,
  histogramColumns,
  tailOfPercentile,
  tailPoints,
  timelineStart,
  timeseriesColumns,
} from "../../client/src/histogram/transforms.js";
import { heatColour } from "../../client/src/histogram/palette.js";
import { sparkPoints, SPARK_POINTS_MAX } from "../../client/src/probe/sparkline.js";
import { mulberry32 } from "../../shared/prng.js";

const edges = [10, 20, 40, 80].map(Number);
const hist: HistogramResponse = {
  from: 0,
  to: 1,
  binsPerDecade: 3,
  edges,
  series: [
    { method: "xhr", target: "A", count: 10, failures: 1, counts: [2, 5, 3] },
    { method: "ping", target: "A", count: 4, failures: 0, counts: [4, 0, 0] },
  ],
};

describe("histogram columns", () => {
  it("x holds every edge, y the bin heights with the last step closed at 0", () => {
    const [x, xhr, ping] = histogramColumns(hist, "count");
    expect(x).toEqual(edges);
    expect(xhr).toEqual([2, 5, 3, 0]);
    expect(ping).toEqual([4, 0, 0, 0]);
  });

  it("share divides by each series' own ok count, so shapes compare across sizes", () => {
    const [, xhr, ping] = histogramColumns(hist, "share");
    expect(xhr).toEqual([0.2, 0.5, 0.3, 0]);
    expect(ping).toEqual([1, 0, 0, 0]);
    const empty = histogramColumns(
      { ...hist, series: [{ method: "ws", target: "B", count: 0, failures: 3, counts: [0, 0, 0] }] },
      "share",
    );
    expect(empty[1]).toEqual([0, 0, 0, 0]);
  });
});

describe("tail view of the CDF", () => {
  it("1 − F is the share slower than x; the maximum sits at half a sample, not at 0", () => {
    const [xs, ys] = tailPoints(
      [
        [1, 0.5],
        [2, 0.9],
        [5, 0.99],
        [9, 1],
      ],
      100,
    );
    expect(xs).toEqual([1, 2, 5, 9]);
    expect(ys[0]).toBeCloseTo(0.5, 12);
    expect(ys[1]).toBeCloseTo(0.1, 12);
    expect(ys[2]).toBeCloseTo(0.01, 12);
    expect(ys[3]).toBe(0.005);
  });

  it("a nearest-rank percentile of random data lands at its 1 − F height", () => {
    const rnd = mulberry32(3);
    const values = Array.from({ length: 5000 }, () => 10 * Math.exp(rnd() * 3)).sort((a, b) => a - b);
    // Exact CDF at every distinct value, as the endpoint documents.
    const points: [number, number][] = values.map((v, i) => [v, (i + 1) / values.length]);
    const [xs, ys] = tailPoints(points, values.length);
    for (const p of [50, 90, 99, 99.9]) {
      const pv = percentileSorted(values, p)!;
      const i = xs.indexOf(pv);
      // At the percentile, at most (100 - p)% of samples are slower.
      expect(ys[i]!).toBeLessThanOrEqual(tailOfPercentile(p) + 1e-12);
      expect(ys[i - 1]!).toBeGreaterThan(tailOfPercentile(p) - 1e-12);
    }
    expect(tailOfPercentile(99.9)).toBe(0.001);
  });

  it("series sampled at different latencies are outer-joined on x", () => {
    const [x, a, b] = alignSeries([
      [
        [1, 3],
        [0.5, 0.1],
      ],
      [
        [2, 3, 4],
        [0.6, 0.2, 0.01],
      ],
    ]);
    expect(x).toEqual([1, 2, 3, 4]);
    expect(a).toEqual([0.5, null, 0.1, null]);
    expect(b).toEqual([null, 0.6, 0.2, 0.01]);
    const cdf: CdfResponse = {
      from: 0,
      to: 1,
      series: [
        {
          method: "ws",
          target: "A",
          count: 2,
          points: [
            [1, 0.5],
            [3, 1],
          ],
        },
        {
          method: "xhr",
          target: "A",
          count: 4,
          points: [
            [2, 0.75],
            [3, 1],
          ],
        },
      ],
    };
    expect(cdfColumns(cdf)).toEqual([
      [1, 2, 3],
      [0.5, null, 0.25],
      [null, 0.25, 0.125],
    ]);
  });
});

describe("latency over time and heatmap", () => {
  const ts: TimeseriesResponse = {
    from: 0,
    to: 30_000,
    bucketMs: 10_000,
    t: [0, 10_000, 20_000],
    series: [
      {
        method: "ws",
        target: "A",
        count: [3, 0, 2],
        failures: [0, 2, 0],
        p50: [5, null, 6],
        p90: [7, null, 8],
        p99: [9, null, 9],
        max: [9, null, 10],
      },
    ],
  };

  it("one panel's columns: bucket middles, p50/p90/p99/max, failures (gaps where none)", () => {
    expect(timeseriesColumns(ts, 0)).toEqual([
      [5_000, 15_000, 25_000],
      [5, null, 6],
      [7, null, 8],
      [9, null, 9],
      [9, null, 10],
      [null, 2, null],
    ]);
    expect(timeseriesColumns(ts, 5)).toEqual([[]]);
  });

  it("the time charts start at the range, or at its first bucket with a sample or a failure", () => {
    expect(timelineStart(ts)).toBe(0);
    const empty = (n: number) => Array.from({ length: n }, () => 0);
    const nulls = (n: number) => Array.from({ length: n }, () => null);
    const late: TimeseriesResponse = {
      from: 5_000,
      to: 60_000,
      bucketMs: 10_000,
      t: [0, 10_000, 20_000, 30_000, 40_000, 50_000],
      series: [
        {
          method: "ws",
          target: "A",
          count: [0, 0, 0, 0, 4, 0],
          failures: empty(6),
          p50: nulls(6),
          p90: nulls(6),
          p99: nulls(6),
          max: nulls(6),
        },
        {
          method: "xhr",
          target: "B",
          count: empty(6),
          failures: [0, 0, 1, 0, 0, 0],
          p50: nulls(6),
          p90: nulls(6),
          p99: nulls(6),
          max: nulls(6),
        },
      ],
    };
    // A failure counts as data: an outage at the start must show.
    expect(timelineStart(late)).toBe(20_000);
    // The first bucket may begin before the range: the range's start wins.
    late.series[1]!.failures = [1, 0, 0, 0, 0, 0];
    expect(timelineStart(late)).toBe(5_000);
    // Nothing at all: the range as asked.
    expect(timelineStart({ ...late, series: [] })).toBe(5_000);
  });

  it("heatmap cells are the non-empty (bucket, bin) pairs with their bounds", () => {
    const e = [0, 1, 2, 3].map((k) => binEdge(k, 10));
    const h: HeatmapResponse = {
      from: 0,
      to: 20_000,
      bucketMs: 10_000,
      binsPerDecade: 10,
      t: [0, 10_000],
      edges: e,
      series: [
        {
          method: "ws",
          target: "A",
          counts: [
            [0, 4, 0],
            [1, 0, 9],
          ],
        },
      ],
    };
    const { cells, maxCount } = heatmapCells(h, 0);
    expect(maxCount).toBe(9);
    expect(cells).toEqual([
      { t0: 0, t1: 10_000, ms0: e[1], ms1: e[2], count: 4 },
      { t0: 10_000, t1: 20_000, ms0: e[0], ms1: e[1], count: 1 },
      { t0: 10_000, t1: 20_000, ms0: e[2], ms1: e[3], count: 9 },
    ]);
    // The y axis starts and ends on whole decades.
    expect(heatmapLatencyRange(cells)).toEqual([1, 10]);
  });

  it("heat colours run dark to light with the count, so a lone tail sample stays visible", () => {
    const lum = (c: string) => {
      const [r, g, b] = c.match(/\d+/g)!.map(Number);
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const shades = [1, 3, 10, 30, 100].map((n) => lum(heatColour(n, 100)));
    for (let i = 1; i < shades.length; i++) expect(shades[i]!).toBeGreaterThan(shades[i - 1]!);
    expect(heatColour(1, 1)).toBe("rgb(253, 231, 37)");
  });
});

describe("probe page sparkline", () => {
  it("newest at the right, log scale, failures as gaps", () => {
    const pts = sparkPoints([1, 10, null, 100], 120, 22, 2);
    expect(pts.map((p) => p.y === null)).toEqual([false, false, true, false]);
    expect(pts[3]!.x).toBeCloseTo(118, 9);
    expect(pts[0]!.x).toBeCloseTo(2 + (SPARK_POINTS_MAX - 4) * (116 / (SPARK_POINTS_MAX - 1)), 9);
    // 1, 10, 100 ms are evenly spaced on a log scale: bottom, middle, top.
    expect(pts[0]!.y).toBeCloseTo(20, 9);
    expect(pts[1]!.y).toBeCloseTo(11, 9);
    expect(pts[3]!.y).toBeCloseTo(2, 9);
  });
});
