// The computations behind /api/stats and the chart endpoints, over raw stored
// samples. Each reads one filtered SELECT in slices (see read-pool.ts) and
// then summarises, yielding between series and buckets. A later step can
// answer the same shapes from rollups without touching routes (server/query/):
// the Store interface is the door, these functions are one implementation.
import {
  binEdge,
  CDF_MARKER_PERCENTILES,
  chooseBucketMs,
  logBin,
  MAX_HEATMAP_CELLS,
  MAX_TIME_BUCKETS,
  TCP_MIN_RTT_SERIES,
  type CdfResponse,
  type HeatmapResponse,
  type HistogramResponse,
  type SeriesKey,
  type TimeseriesResponse,
  EPOCH_MS_MIN,
  type StatsRow,
} from "../../shared/contract/index.js";
import { methodOrder } from "../../shared/methods.js";
import { percentileSorted, summarizeSorted } from "../../shared/stats.js";
import { Pace, type ReadPool } from "./read-pool.js";
import { sampleWhere, seriesWanted, type SampleFilter } from "./sample-filter.js";
import { slicedSort } from "./sliced-sort.js";
import type { StoredClient } from "./stored-client.js";
import { parseUserAgent } from "./user-agent.js";

/** The request would produce more than the caps allow; the client should ask for less. */
export class QueryTooLargeError extends Error {
  readonly code = "QUERY_TOO_LARGE";
}


/**
 * One row as a series sees it. `inTail`: the row is part of the latency
 * distribution: an ok answer, or with `timeoutsInTail` a timeout at the
 * timeout value it was stored with (the slowest tail a user can have).
 */
type Visit = (t: number, method: string, target: string, outcome: string, ms: number | null, inTail: boolean) => void;
type SampleRow = [number, string, string, string, number | null, number | null];

async function scanSamples(pool: ReadPool, filter: SampleFilter, pace: Pace, visit: Visit): Promise<void> {
  const where = sampleWhere(filter);
  const wanted = seriesWanted(filter);
  const wantOwn = wanted("tcprtt");
  const wantMin = wanted(TCP_MIN_RTT_SERIES);
  const timeoutsInTail = filter.timeoutsInTail === true;
  await pool.scan(
    `SELECT t, method, target, outcome, ms, minrtt FROM samples WHERE ${where.sql}`,
    where.params,
    (row) => {
      const [t, method, target, outcome, ms, minrtt] = row as SampleRow;
      // Only tcprtt rows can be there for their derived series alone.
      const inTail = ms !== null && (outcome === "ok" || (timeoutsInTail && outcome === "timeout"));
      if (method !== "tcprtt" || wantOwn) visit(t, method, target, outcome, ms, inTail);
      // The kernel's min RTT is a series of its own beside the smoothed RTT.
      if (minrtt !== null && wantMin) visit(t, TCP_MIN_RTT_SERIES, target, "ok", minrtt, true);
    },
    pace,
  );
}

/** Per-(method, target) state, listed in the table's order: by target, then method. */
class SeriesMap<S> {
  // Two levels instead of one "method/target" key: no string built per row.
  private readonly byMethod = new Map<string, Map<string, SeriesKey & { state: S }>>();
  constructor(private readonly make: () => S) {}

  get(method: string, target: string): S {
    let byTarget = this.byMethod.get(method);
    if (byTarget === undefined) {
      byTarget = new Map();
      this.byMethod.set(method, byTarget);
    }
    let e = byTarget.get(target);
    if (e === undefined) {
      e = { method, target, state: this.make() };
      byTarget.set(target, e);
    }
    return e.state;
  }

  sorted(): (SeriesKey & { state: S })[] {
    return [...this.byMethod.values()].flatMap((m) => [...m.values()]).sort(
      (a, b) => a.target.localeCompare(b.target) || methodOrder(a.method) - methodOrder(b.method) || a.method.localeCompare(b.method),
    );
  }
}

const isFailure = (outcome: string) => outcome === "timeout" || outcome === "error";

// ---- stats --------------------------------------------------------------------

export async function statsQuery(pool: ReadPool, filter: SampleFilter, pace = new Pace()): Promise<StatsRow[]> {
  const groups = new SeriesMap(() => ({ values: [] as number[], failures: 0, skipped: 0 }));
  await scanSamples(pool, filter, pace, (_t, method, target, outcome, ms, inTail) => {
    const g = groups.get(method, target);
    if (inTail) g.values.push(ms!);
    // A timeout in the tail is still a failure: the failures column stays the same either way.
    if (outcome === "skipped") g.skipped++;
    else if (outcome !== "ok" || ms === null) g.failures++;
  });
  const rows: StatsRow[] = [];
  for (const { method, target, state } of groups.sorted()) {
    const sorted = await slicedSort(state.values, pace);
    state.values = [];
    rows.push({ method, target, failures: state.failures, skipped: state.skipped, ...summarizeSorted(sorted) });
    await pace.maybeYield();
  }
  return rows;
}

// ---- histogram ----------------------------------------------------------------

export async function histogramQuery(
  pool: ReadPool,
  filter: SampleFilter,
  binsPerDecade: number,
  pace = new Pace(),
): Promise<HistogramResponse> {
  const series = new SeriesMap(() => ({ bins: new Map<number, number>(), count: 0, failures: 0 }));
  let lo = Infinity;
  let hi = -Infinity;
  await scanSamples(pool, filter, pace, (_t, method, target, outcome, ms, inTail) => {
    const s = series.get(method, target);
    if (isFailure(outcome)) s.failures++;
    if (inTail) {
      const k = logBin(ms!, binsPerDecade);
      s.bins.set(k, (s.bins.get(k) ?? 0) + 1);
      s.count++;
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    }
  });
  const edges = binEdges(lo, hi, binsPerDecade);
  return {
    from: filter.fromMs,
    to: filter.toMs,
    binsPerDecade,
    edges,
    series: series.sorted().map(({ method, target, state }) => {
      const counts = new Array<number>(Math.max(0, edges.length - 1)).fill(0);
      for (const [k, c] of state.bins) counts[k - lo] = c;
      return { method, target, count: state.count, failures: state.failures, counts };
    }),
  };
}

/** Edges of bins lo..hi inclusive (hi - lo + 2 edges); none when no sample fell in any bin. */
function binEdges(lo: number, hi: number, binsPerDecade: number): number[] {
  if (lo > hi) return [];
  const edges: number[] = [];
  for (let k = lo; k <= hi + 1; k++) edges.push(binEdge(k, binsPerDecade));
  return edges;
}

// ---- cdf ----------------------------------------------------------------------

/** Every distinct value among this many slowest samples is a CDF point. */
export const CDF_TAIL_POINTS = 1000;
/** Quantile points below the tail: half evenly spaced in F, half log-spaced in 1 − F. */
export const CDF_BULK_POINTS = 200;

export async function cdfQuery(pool: ReadPool, filter: SampleFilter, pace = new Pace()): Promise<CdfResponse> {
  const series = new SeriesMap(() => ({ values: [] as number[] }));
  await scanSamples(pool, filter, pace, (_t, method, target, _outcome, ms, inTail) => {
    const s = series.get(method, target);
    if (inTail) s.values.push(ms!);
  });
  const out: CdfResponse["series"] = [];
  for (const { method, target, state } of series.sorted()) {
    const sorted = await slicedSort(state.values, pace);
    state.values = [];
    const entry: CdfResponse["series"][number] = { method, target, count: sorted.length, points: cdfPoints(sorted) };
    if (sorted.length > 0)
      entry.markers = CDF_MARKER_PERCENTILES.map((p) => ({ p, ms: percentileSorted(sorted, p) ?? Number.NaN }));
    out.push(entry);
    await pace.maybeYield();
  }
  return { from: filter.fromMs, to: filter.toMs, series: out };
}

/** Index one past the last occurrence of v in sorted (v must occur). */
function upperBound(sorted: Float64Array, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Points [ms, F] with F = share of values ≤ ms, exact; ascending in ms, one per distinct value. */
export function cdfPoints(sorted: Float64Array): [number, number][] {
  const n = sorted.length;
  const points: [number, number][] = [];
  if (n === 0) return points;
  const tailStart = Math.max(0, n - CDF_TAIL_POINTS); // 0-based index of the first tail value
  const ranks = new Set<number>();
  if (tailStart > 0) {
    ranks.add(1);
    const half = CDF_BULK_POINTS / 2;
    for (let i = 1; i <= half; i++) ranks.add(Math.ceil((i / half) * tailStart));
    // 1 − F from 1 down to the tail's share, log-spaced.
    const decades = Math.log10(n / (n - tailStart));
    for (let j = 0; j <= half; j++) ranks.add(Math.max(1, Math.min(tailStart, n - Math.floor(n * 10 ** (-(j / half) * decades)))));
  }
  let last = Number.NEGATIVE_INFINITY;
  for (const r of [...ranks].sort((a, b) => a - b)) {
    const v = sorted[r - 1]!;
    if (v === last) continue;
    points.push([v, upperBound(sorted, v) / n]);
    last = v;
  }
  for (let i = tailStart; i < n; i++) {
    const v = sorted[i]!;
    if (v === last || (i + 1 < n && sorted[i + 1] === v)) continue; // emit each value at its last occurrence
    points.push([v, (i + 1) / n]);
    last = v;
  }
  return points;
}

// ---- time axis ----------------------------------------------------------------

export interface TimeAxis {
  /** Resolved range start: the first stored sample when `from` was left at the beginning of time. */
  fromMs: number;
  bucketMs: number;
  /** Start of bucket 0, aligned to bucketMs. */
  t0: number;
  buckets: number;
}

/**
 * The axis from a resolved start (epoch ms, or null when nothing is stored):
 * shared by the raw path here and the rollup path (server/query/time-axis.ts).
 */
export function axisFrom(fromMs: number | null, filter: SampleFilter, bucketMs: number | undefined): TimeAxis {
  if (fromMs === null) return { fromMs: filter.fromMs, bucketMs: bucketMs ?? chooseBucketMs(0), t0: 0, buckets: 0 };
  const width = bucketMs ?? chooseBucketMs(filter.toMs - fromMs);
  const first = Math.floor(fromMs / width);
  const buckets = Math.floor(filter.toMs / width) - first + 1;
  if (buckets > MAX_TIME_BUCKETS)
    throw new QueryTooLargeError(
      `${buckets} time buckets of ${width} ms; at most ${MAX_TIME_BUCKETS}: choose a larger bucketMs or a shorter range`,
    );
  return { fromMs, bucketMs: width, t0: first * width, buckets };
}

async function timeAxis(pool: ReadPool, filter: SampleFilter, bucketMs: number | undefined): Promise<TimeAxis> {
  if (filter.fromMs >= EPOCH_MS_MIN) return axisFrom(filter.fromMs, filter, bucketMs);
  // "Everything" must not mean buckets back to 1970: start at the first
  // stored sample. Only the time bounds, not the other filters: min(t) is
  // then one index probe, where a filtered min could walk the whole index
  // in one uninterruptible step.
  const rows = await pool.all<{ first: number | null }>("SELECT min(t) AS first FROM samples WHERE t >= ? AND t <= ?", [
    filter.fromMs,
    filter.toMs,
  ]);
  return axisFrom(rows[0]?.first ?? null, filter, bucketMs);
}

export function bucketStarts(axis: TimeAxis): number[] {
  return Array.from({ length: axis.buckets }, (_, i) => axis.t0 + i * axis.bucketMs);
}

// ---- timeseries ---------------------------------------------------------------

export async function timeseriesQuery(
  pool: ReadPool,
  filter: SampleFilter,
  bucketMs: number | undefined,
  pace = new Pace(),
): Promise<TimeseriesResponse> {
  const axis = await timeAxis(pool, filter, bucketMs);
  const n = axis.buckets;
  const series = new SeriesMap(() => ({
    values: new Array<number[] | undefined>(n),
    failures: new Array<number>(n).fill(0),
  }));
  if (n > 0) {
    await scanSamples(pool, { ...filter, fromMs: axis.fromMs }, pace, (t, method, target, outcome, ms, inTail) => {
      const i = Math.floor((t - axis.t0) / axis.bucketMs);
      if (i < 0 || i >= n) return;
      const s = series.get(method, target);
      if (inTail) (s.values[i] ??= []).push(ms!);
      if (isFailure(outcome)) s.failures[i]!++;
    });
  }
  const out: TimeseriesResponse["series"] = [];
  for (const { method, target, state } of series.sorted()) {
    const row: TimeseriesResponse["series"][number] = {
      method,
      target,
      count: new Array<number>(n).fill(0),
      failures: state.failures,
      p50: new Array<number | null>(n).fill(null),
      p90: new Array<number | null>(n).fill(null),
      p99: new Array<number | null>(n).fill(null),
      max: new Array<number | null>(n).fill(null),
    };
    for (let i = 0; i < n; i++) {
      const vs = state.values[i];
      if (vs === undefined) continue;
      const sorted = Float64Array.from(vs).sort();
      row.count[i] = sorted.length;
      row.p50[i] = percentileSorted(sorted, 50);
      row.p90[i] = percentileSorted(sorted, 90);
      row.p99[i] = percentileSorted(sorted, 99);
      row.max[i] = sorted[sorted.length - 1]!;
      await pace.maybeYield();
    }
    out.push(row);
  }
  return { from: axis.fromMs, to: filter.toMs, bucketMs: axis.bucketMs, t: bucketStarts(axis), series: out };
}

// ---- heatmap ------------------------------------------------------------------

/** Cell key = bucket * BIN_SPAN + bin + BIN_OFFSET; latency bins stay within ±BIN_OFFSET (1 µs .. 1 day at 100 bins per decade). */
const BIN_OFFSET = 2048;
const BIN_SPAN = 4096;

export async function heatmapQuery(
  pool: ReadPool,
  filter: SampleFilter,
  bucketMs: number | undefined,
  binsPerDecade: number,
  pace = new Pace(),
): Promise<HeatmapResponse> {
  const axis = await timeAxis(pool, filter, bucketMs);
  const n = axis.buckets;
  const series = new SeriesMap(() => new Map<number, number>());
  let lo = Infinity;
  let hi = -Infinity;
  if (n > 0) {
    await scanSamples(pool, { ...filter, fromMs: axis.fromMs }, pace, (t, method, target, _outcome, ms, inTail) => {
      const i = Math.floor((t - axis.t0) / axis.bucketMs);
      if (i < 0 || i >= n) return;
      const cells = series.get(method, target);
      if (!inTail) return;
      const k = logBin(ms!, binsPerDecade);
      const key = i * BIN_SPAN + k + BIN_OFFSET;
      cells.set(key, (cells.get(key) ?? 0) + 1);
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    });
  }
  const edges = binEdges(lo, hi, binsPerDecade);
  const bins = Math.max(0, edges.length - 1);
  if (n * bins > MAX_HEATMAP_CELLS)
    throw new QueryTooLargeError(
      `${n} time buckets × ${bins} latency bins = ${n * bins} cells per series; at most ${MAX_HEATMAP_CELLS}: choose a larger bucketMs, fewer binsPerDecade or a shorter range`,
    );
  const out: HeatmapResponse["series"] = [];
  for (const { method, target, state } of series.sorted()) {
    const counts = Array.from({ length: n }, () => new Array<number>(bins).fill(0));
    for (const [key, c] of state) {
      const i = Math.floor(key / BIN_SPAN);
      counts[i]![key - i * BIN_SPAN - BIN_OFFSET - lo] = c;
    }
    out.push({ method, target, counts });
    await pace.maybeYield();
  }
  return {
    from: axis.fromMs,
    to: filter.toMs,
    bucketMs: axis.bucketMs,
    binsPerDecade,
    t: bucketStarts(axis),
    edges,
    series: out,
  };
}

// ---- clients ------------------------------------------------------------------

interface SessionRow {
  client_id: string;
  label: string | null;
  user_agent: string | null;
  first_seen_ms: number;
  last_t: number | null;
}

/** Everyone who has reported, most recently seen first. */
export async function clientsQuery(pool: ReadPool): Promise<StoredClient[]> {
  // The newest sample of a session is its highest seq: one index probe per session.
  const rows = await pool.all<SessionRow>(
    `SELECT s.client_id, s.label, s.user_agent, s.first_seen_ms,
            (SELECT t FROM samples WHERE session = s.id ORDER BY seq DESC LIMIT 1) AS last_t
     FROM sessions s ORDER BY s.first_seen_ms, s.id`,
    [],
  );
  const byClient = new Map<string, StoredClient>();
  for (const r of rows) {
    const lastSeen = Math.max(r.first_seen_ms, r.last_t ?? r.first_seen_ms);
    let c = byClient.get(r.client_id);
    if (c === undefined) {
      c = { clientId: r.client_id, label: null, userAgent: null, browser: null, os: null, firstSeen: r.first_seen_ms, lastSeen, sessions: 0 };
      byClient.set(r.client_id, c);
    }
    c.sessions++;
    c.lastSeen = Math.max(c.lastSeen, lastSeen);
    // Sessions come oldest first: the newest label and user agent win.
    if (r.label !== null) c.label = r.label;
    if (r.user_agent !== null) c.userAgent = r.user_agent;
  }
  const clients = [...byClient.values()];
  for (const c of clients) {
    const ua = parseUserAgent(c.userAgent);
    c.browser = ua.browser;
    c.os = ua.os;
  }
  return clients.sort((a, b) => b.lastSeen - a.lastSeen || a.clientId.localeCompare(b.clientId));
}
