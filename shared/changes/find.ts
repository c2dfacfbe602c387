// The change points of one series over a range, from the two rollup levels
// the store keeps for months: hour cells screen the whole range cheaply, and
// the 5-minute cells around each hour that might hold a change (and at the
// live edge, whose hours are not complete) place it to the 5 minutes. Where
// the 5-minute rollups are gone (older than --raw-days) the hours decide.
import { cellsWithin, type CellSeries } from "./cells.js";
import { detect, weakBoundaries, type ChangePoint, type DetectOptions, type Statistic } from "./detect.js";

export const FINE_MS = 5 * 60_000;
export const HOUR_MS = 3_600_000;

export interface ChangeParams {
  /** Smallest relative change per statistic (0.2: the larger quantile is at least 1.2 times the smaller). */
  minRel: Record<Statistic, number>;
  /** Significance level of the final test (Otava's max_pvalue). */
  alpha: number;
  /** Longest window compared on each side of a change (ms). */
  windowMs: number;
  /** Shortest window on each side, hence the shortest segment between two changes (ms). */
  minSegmentMs: number;
}

export const CHANGE_PARAMS_DEFAULT: ChangeParams = {
  minRel: { p50: 0.2, p90: 0.3, p99: 0.5 },
  alpha: 0.001,
  windowMs: 2 * HOUR_MS,
  minSegmentMs: 30 * 60_000,
};

/** First-pass level: weak points at ten times alpha, re-tested at alpha (Otava). */
const WEAK_FACTOR = 10;
/** The screen on hour cells flags moves of this share of the smallest change (a change mid-hour is diluted). */
const SCREEN_SHARE = 0.5;
/** Hour cells compared on each side by the screen, at most and at least. */
const SCREEN_CELLS = 2;
/** Around an hour boundary the screen flags, the 5-minute search covers this much either side (ms). */
export const REGION_MS = HOUR_MS;
/** Hours at the live edge searched on 5-minute cells whatever the screen says (its hour windows are not complete there). */
const EDGE_MS = 3 * HOUR_MS;
/** Gaps a window may bridge beyond its length (ms): a hidden tab's hour does not end a comparison. */
const GAP_SLACK_MS = HOUR_MS;
/** Hour cells per side at most and at least where only hours are left. */
const HOUR_WINDOW_CELLS = 6;
const HOUR_MIN_CELLS = 2;

export function detectOptions(p: ChangeParams, cellMs: number): DetectOptions {
  if (cellMs >= HOUR_MS)
    return {
      windowCells: HOUR_WINDOW_CELLS,
      minCells: HOUR_MIN_CELLS,
      spanMs: HOUR_WINDOW_CELLS * HOUR_MS + GAP_SLACK_MS,
      alpha: p.alpha,
      alphaWeak: p.alpha * WEAK_FACTOR,
      minRel: p.minRel,
    };
  return {
    windowCells: Math.max(1, Math.round(p.windowMs / cellMs)),
    minCells: Math.max(1, Math.round(p.minSegmentMs / cellMs)),
    spanMs: p.windowMs + GAP_SLACK_MS,
    alpha: p.alpha,
    alphaWeak: p.alpha * WEAK_FACTOR,
    minRel: p.minRel,
  };
}

function screenOptions(p: ChangeParams): DetectOptions {
  const share = (x: number) => x * SCREEN_SHARE;
  return {
    windowCells: SCREEN_CELLS,
    minCells: 1,
    spanMs: SCREEN_CELLS * HOUR_MS + GAP_SLACK_MS,
    alpha: 1,
    alphaWeak: 1,
    minRel: { p50: share(p.minRel.p50), p90: share(p.minRel.p90), p99: share(p.minRel.p99) },
  };
}

/** What the finder reads: a series' cells (the server: rollups; tests: generated cells). */
export interface CellSource<K> {
  /** Hour cells of `key` over [fromMs, toMs). */
  hours(key: K, fromMs: number, toMs: number): Promise<CellSeries>;
  /** 5-minute cells of `key` over [fromMs, toMs) (none before fineFromMs). */
  fine(key: K, fromMs: number, toMs: number): Promise<CellSeries>;
  /** Epoch ms from which 5-minute cells are kept. */
  fineFromMs(): number;
}

export interface FoundPoint extends ChangePoint {
  /** The cells the point was placed on: 5 minutes, or an hour where those are gone. */
  cellMs: number;
}

/** How far data around [fromMs, toMs] is read so a change near either end is judged as it would be anywhere (ms). */
export function paddingMs(p: ChangeParams): number {
  return Math.max(p.windowMs, HOUR_WINDOW_CELLS * HOUR_MS) + 2 * GAP_SLACK_MS;
}

/** Spans [from, to) where 5-minute cells are searched: around each flagged hour boundary, and the live edge. */
export function searchRegions(hours: CellSeries, p: ChangeParams, skip: (tMs: number) => boolean): [number, number][] {
  const cells = hours.cells;
  if (cells.length === 0) return [];
  const flagged = weakBoundaries(hours, screenOptions(p)).map((b) => cells[b.index]!.startMs);
  const regions: [number, number][] = flagged.filter((t) => !skip(t)).map((t) => [t - REGION_MS, t + REGION_MS]);
  const endMs = cells[cells.length - 1]!.startMs + hours.cellMs;
  regions.push([endMs - HOUR_MS - EDGE_MS, endMs]);
  regions.sort((a, b) => a[0] - b[0]);
  const joined: [number, number][] = [];
  for (const r of regions) {
    const last = joined[joined.length - 1];
    if (last !== undefined && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else joined.push([...r]);
  }
  return joined;
}

/** Points closer than the shortest segment (found in two regions, or one on each side of a region's edge): the one with more samples around it stays. */
function apart(points: FoundPoint[], minSegmentMs: number): FoundPoint[] {
  const out: FoundPoint[] = [];
  for (const pt of points.sort((a, b) => a.t - b.t)) {
    const last = out[out.length - 1];
    if (last !== undefined && pt.t - last.t < minSegmentMs) {
      if (pt.samplesBefore + pt.samplesAfter > last.samplesBefore + last.samplesAfter) out[out.length - 1] = pt;
    } else out.push(pt);
  }
  return out;
}

/**
 * The change points of `key` with t in [fromMs, toMs]. `skip(t)`: hour
 * boundaries not worth a 5-minute search (a client's share of a change the
 * all-clients series already shows).
 */
export async function findChangePoints<K>(
  source: CellSource<K>,
  key: K,
  fromMs: number,
  toMs: number,
  p: ChangeParams = CHANGE_PARAMS_DEFAULT,
  skip: (tMs: number) => boolean = () => false,
): Promise<FoundPoint[]> {
  const pad = paddingMs(p);
  const hours = await source.hours(key, fromMs - pad, toMs + pad);
  const fineFrom = source.fineFromMs();
  const fineOpts = detectOptions(p, FINE_MS);
  const hourOpts = detectOptions(p, HOUR_MS);
  const found: FoundPoint[] = [];
  // Before the 5-minute cells are gone, the hour cells decide (at hour resolution).
  if (hours.cells.length > 0 && hours.cells[0]!.startMs < fineFrom) {
    const old = cellsWithin(hours, -Infinity, fineFrom + pad);
    for (const pt of detect(old, hourOpts)) if (pt.t < fineFrom) found.push({ ...pt, cellMs: HOUR_MS });
  }
  for (const [a, b] of searchRegions(hours, p, skip)) {
    const from = Math.max(a, fineFrom);
    if (from >= b) continue;
    const context = fineOpts.spanMs;
    const fine = await source.fine(key, from - context, b + context);
    for (const pt of detect(fine, fineOpts)) if (pt.t >= from && pt.t < b) found.push({ ...pt, cellMs: FINE_MS });
  }
  return apart(found, p.minSegmentMs).filter((pt) => pt.t >= fromMs && pt.t <= toMs);
}
