// Level shifts in one series' latency distribution, found on its cells (time
// buckets of coarse histograms, cells.ts). For every boundary between two
// cells, the cells just before and just after (windows of at most
// `windowCells`, at least `minCells`) are compared per statistic (p50, p90,
// p99):
//   magnitude    the quantile after over the quantile before, required to
//                hold (same sign, at least the smallest of them) over a band
//                of levels around the one named, so a percentile that jumps
//                between two modes (seed 004's trimodal ping) is no shift;
//   significance each cell's share of values above the two windows' pooled
//                quantile, before against after, by Welch's t-test: the cells
//                are the replicates, so a burst of spikes inside one cell
//                counts once, not once per spike.
// Boundaries that pass a first, weaker test are local maxima of |t| (weak
// points); each is then re-tested with its windows cut at its neighbours,
// the weakest failing one dropped and its neighbours re-tested until all pass
// (Otava's split-and-merge, docs/changes.md). Everything a point depends on
// lies within its windows, so data arriving later changes it only while it
// falls inside them.
import { samplesNeededFor } from "../stats.js";
import type { CellSeries } from "./cells.js";
import { Prefix } from "./prefix.js";
import { welch, type Moments } from "./student-t.js";

export const STATISTICS = ["p50", "p90", "p99"] as const;
export type Statistic = (typeof STATISTICS)[number];

/** Quantile level of each statistic. */
export const LEVELS: Record<Statistic, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };
/** Half-width of the band of levels a shift must hold over. */
const BANDS: Record<Statistic, number> = { p50: 0.05, p90: 0.02, p99: 0.004 };
/** Samples each window needs for a statistic to be judged: ten beyond it (p90: 100, p99: 1,000). */
export const SAMPLES_MIN: Record<Statistic, number> = {
  p50: samplesNeededFor(50),
  p90: samplesNeededFor(90),
  p99: samplesNeededFor(99),
};
/** A cell with fewer samples stays out of the significance test (its share above a threshold is mostly noise); its samples still count in the quantiles. */
const CELL_SAMPLES_MIN = 5;

export interface DetectOptions {
  /** Cells per window at most (each side). */
  windowCells: number;
  /** Non-empty cells per window at least: the shortest segment a change may bound. */
  minCells: number;
  /** Longest time a window may span, gaps included (ms). */
  spanMs: number;
  /** Significance level of the final test; 1 skips the test (screening). */
  alpha: number;
  /** Level of the first pass that nominates weak points (Otava: ten times alpha). */
  alphaWeak: number;
  /** Smallest relative change per statistic: 0.2 means the larger quantile is at least 1.2 times the smaller. */
  minRel: Record<Statistic, number>;
}

export interface Move {
  statistic: Statistic;
  /** The quantile over the window before and after (µs). */
  beforeUs: number;
  afterUs: number;
  /** ln(after / before), the smallest in size over the band (0 when the band disagrees on the direction). */
  logRatio: number;
  /** Welch's t of the cells' shares above the pooled quantile, and its two-sided p-value. */
  t: number;
  p: number;
}

export interface ChangePoint {
  /** Index of the first cell after the change. */
  index: number;
  /** Start of that cell (epoch ms): when the change shows. */
  t: number;
  /**
   * Start of the cell before it: the change happened in [earliestT, t + one
   * cell) (the cells either side of t may each hold both levels; across a
   * gap, the gap too).
   */
  earliestT: number;
  /** The windows compared: [beforeFromMs, t) and [t, afterToMs). */
  beforeFromMs: number;
  afterToMs: number;
  samplesBefore: number;
  samplesAfter: number;
  /** The statistics that moved, the largest move first. */
  moves: Move[];
}

interface Split {
  lo: number;
  tau: number;
  hi: number;
}

/** The windows around boundary tau (cells [lo, tau) and [tau, hi)), kept within (lower, upper); null when either is too short. */
function splitAt(s: CellSeries, tau: number, lower: number, upper: number, o: DetectOptions): Split | null {
  const cells = s.cells;
  const at = cells[tau]!.startMs;
  let lo = tau;
  while (lo > lower && tau - lo < o.windowCells && at - cells[lo - 1]!.startMs <= o.spanMs) lo--;
  let hi = tau;
  while (hi < upper && hi - tau < o.windowCells && cells[hi]!.startMs - at < o.spanMs) hi++;
  if (tau - lo < o.minCells || hi - tau < o.minCells) return null;
  return { lo, tau, hi };
}

/** Mean and variance of the cells' shares above `us`, the variance at least a binomial share's with that many samples. */
function shares(prefix: Prefix, from: number, to: number, us: number, pooledShare: number): Moments | null {
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  let samples = 0;
  for (let c = from; c < to; c++) {
    const count = prefix.count(c, c + 1);
    if (count < CELL_SAMPLES_MIN) continue;
    const share = prefix.above(c, c + 1, us) / count;
    n++;
    sum += share;
    sumSq += share * share;
    samples += count;
  }
  if (n < 2) return null;
  const mean = sum / n;
  const variance = Math.max(0, (sumSq - n * mean * mean) / (n - 1));
  const floor = (pooledShare * (1 - pooledShare)) / (samples / n);
  return { n, mean, variance: Math.max(variance, floor) };
}

/** Each statistic the windows can judge, measured; `passes` against alpha and the magnitudes. */
function measure(prefix: Prefix, w: Split, o: DetectOptions, alpha: number): (Move & { passes: boolean })[] {
  const out: (Move & { passes: boolean })[] = [];
  const nBefore = prefix.count(w.lo, w.tau);
  const nAfter = prefix.count(w.tau, w.hi);
  for (const statistic of STATISTICS) {
    if (nBefore < SAMPLES_MIN[statistic] || nAfter < SAMPLES_MIN[statistic]) continue;
    const q = LEVELS[statistic];
    const band = BANDS[statistic];
    const beforeUs = prefix.quantile(w.lo, w.tau, q)!;
    const afterUs = prefix.quantile(w.tau, w.hi, q)!;
    const smallest = Math.log1p(o.minRel[statistic]);
    // The band only narrows the move: a boundary whose central level moves too little is done.
    if (Math.abs(Math.log(afterUs / beforeUs)) < smallest) {
      out.push({ statistic, beforeUs, afterUs, logRatio: 0, t: 0, p: 1, passes: false });
      continue;
    }
    let logRatio = Infinity;
    let sign = 0;
    for (const level of [q - band, q, q + band]) {
      const r = Math.log(prefix.quantile(w.tau, w.hi, level)! / prefix.quantile(w.lo, w.tau, level)!);
      const sg = Math.sign(r);
      if (sign !== 0 && sg !== sign) sign = 2;
      else if (sign === 0) sign = sg;
      if (Math.abs(r) < Math.abs(logRatio)) logRatio = r;
    }
    if (sign === 2 || sign === 0) logRatio = 0;
    const big = Math.abs(logRatio) >= smallest;
    let t = 0;
    let p = 1;
    if (big && alpha < 1) {
      const threshold = prefix.quantile(w.lo, w.hi, q)!;
      const pooled = prefix.above(w.lo, w.hi, threshold) / prefix.count(w.lo, w.hi);
      const a = shares(prefix, w.lo, w.tau, threshold, pooled);
      const b = shares(prefix, w.tau, w.hi, threshold, pooled);
      if (a !== null && b !== null) ({ t, p } = welch(a, b));
    } else if (big) p = 0;
    out.push({ statistic, beforeUs, afterUs, logRatio, t, p, passes: big && p <= alpha });
  }
  return out;
}

const strength = (moves: readonly Move[]): number => moves.reduce((m, x) => Math.max(m, Math.abs(x.t)), 0);

/**
 * Where exactly, near a peak: the boundary within minCells of it that splits
 * the windows' cells into the two most homogeneous runs, each cell's share
 * above the pooled quantile weighted by its samples (least squares). The
 * peak's |t| weighs every cell alike, so a small cell at the edge of a gap
 * (a few minutes before a tab was hidden) could take the change from the gap
 * it happened in.
 */
function localize(s: CellSeries, prefix: Prefix, peak: number, o: DetectOptions): number {
  const w = splitAt(s, peak, 0, s.cells.length, o);
  if (w === null) return peak;
  const moves = measure(prefix, w, o, o.alphaWeak).filter((m) => m.passes);
  const lead = STATISTICS.find((st) => moves.some((m) => m.statistic === st));
  if (lead === undefined) return peak;
  const threshold = prefix.quantile(w.lo, w.hi, LEVELS[lead])!;
  // Running sums over the cells of n, n·f and n·f² (f: the cell's share above the threshold).
  const len = w.hi - w.lo;
  const sn = new Float64Array(len + 1);
  const sf = new Float64Array(len + 1);
  const sff = new Float64Array(len + 1);
  for (let k = 0; k < len; k++) {
    const c = w.lo + k;
    const n = prefix.count(c, c + 1);
    const f = n > 0 ? prefix.above(c, c + 1, threshold) / n : 0;
    sn[k + 1] = sn[k]! + n;
    sf[k + 1] = sf[k]! + n * f;
    sff[k + 1] = sff[k]! + n * f * f;
  }
  const sse = (a: number, b: number) => {
    const n = sn[b]! - sn[a]!;
    const f = sf[b]! - sf[a]!;
    return n > 0 ? sff[b]! - sff[a]! - (f * f) / n : 0;
  };
  let best = peak;
  let bestSse = Infinity;
  const from = Math.max(w.lo + 1, peak - o.minCells + 1);
  const to = Math.min(w.hi - 1, peak + o.minCells - 1);
  for (let tau = from; tau <= to; tau++) {
    const e = sse(0, tau - w.lo) + sse(tau - w.lo, len);
    if (e < bestSse - 1e-12 || (Math.abs(e - bestSse) <= 1e-12 && Math.abs(tau - peak) < Math.abs(best - peak)))
      (best = tau), (bestSse = e);
  }
  return best;
}

/**
 * Every boundary whose windows pass the first, weaker test (alphaWeak and the
 * magnitudes), by index, with its strength (|t| of its strongest statistic;
 * with alpha 1, the size of its largest move). Screening coarse cells stops here.
 */
export function weakBoundaries(
  s: CellSeries,
  o: DetectOptions,
  prefix = new Prefix(s.cells),
): { index: number; strength: number }[] {
  const out: { index: number; strength: number }[] = [];
  for (let tau = 1; tau < s.cells.length; tau++) {
    const w = splitAt(s, tau, 0, s.cells.length, o);
    if (w === null) continue;
    const passing = measure(prefix, w, o, o.alphaWeak).filter((m) => m.passes);
    if (passing.length === 0) continue;
    const size = o.alphaWeak >= 1 ? passing.reduce((m, x) => Math.max(m, Math.abs(x.logRatio)), 0) : strength(passing);
    out.push({ index: tau, strength: size });
  }
  return out;
}

/** The change points of a series (see the top of this file). */
export function detect(s: CellSeries, o: DetectOptions): ChangePoint[] {
  const n = s.cells.length;
  if (n === 0) return [];
  const prefix = new Prefix(s.cells);
  // Weak points: local maxima of strength, at least minCells apart.
  const weak = weakBoundaries(s, o, prefix).sort((a, b) => b.strength - a.strength || a.index - b.index);
  // Strongest first; each placed exactly (localize), kept if minCells from those kept.
  const strengthAt = new Map<number, number>();
  for (const c of weak) {
    if ([...strengthAt.keys()].some((x) => Math.abs(x - c.index) < o.minCells)) continue;
    const at = localize(s, prefix, c.index, o);
    if ([...strengthAt.keys()].every((x) => Math.abs(x - at) >= o.minCells)) strengthAt.set(at, c.strength);
  }
  const chosen = [...strengthAt.keys()].sort((a, b) => a - b);

  // Merge: re-test each with windows cut at its neighbours; drop the weakest failing one until none fails.
  type Judged = { index: number; split: Split | null; moves: (Move & { passes: boolean })[] };
  const judge = (k: number, points: number[]): Judged => {
    const index = points[k]!;
    const split = splitAt(s, index, k > 0 ? points[k - 1]! : 0, k + 1 < points.length ? points[k + 1]! : n, o);
    return { index, split, moves: split === null ? [] : measure(prefix, split, o, o.alpha) };
  };
  // Weakest: no window at all, then the highest best p-value, then the smallest move (Otava's order), then the weaker peak.
  const weakness = (j: Judged): [number, number, number] => [
    j.split === null ? 2 : j.moves.reduce((m, x) => Math.min(m, x.p), 1),
    -j.moves.reduce((m, x) => Math.max(m, Math.abs(x.logRatio)), 0),
    -(strengthAt.get(j.index) ?? 0),
  ];
  const weaker = (a: [number, number, number], b: [number, number, number]) =>
    a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] > b[2];
  const judged = chosen.map((_, k) => judge(k, chosen));
  for (;;) {
    let weakest = -1;
    for (let k = 0; k < judged.length; k++) {
      if (judged[k]!.moves.some((m) => m.passes)) continue;
      if (weakest < 0) weakest = k;
      else if (weaker(weakness(judged[k]!), weakness(judged[weakest]!))) weakest = k;
    }
    if (weakest < 0) break;
    const points = judged.map((j) => j.index);
    points.splice(weakest, 1);
    judged.splice(weakest, 1);
    for (const k of [weakest - 1, weakest]) if (k >= 0 && k < judged.length) judged[k] = judge(k, points);
  }

  return judged.map(({ index, split, moves: measured }) => {
    const moves: Move[] = measured.filter((m) => m.passes).map(({ passes: _, ...m }) => m);
    const w = split!;
    const before = s.cells[index - 1]!;
    return {
      index,
      t: s.cells[index]!.startMs,
      earliestT: before.startMs,
      beforeFromMs: s.cells[w.lo]!.startMs,
      afterToMs: s.cells[w.hi - 1]!.startMs + s.cellMs,
      samplesBefore: prefix.count(w.lo, index),
      samplesAfter: prefix.count(index, w.hi),
      moves: [...moves].sort((a, b) => Math.abs(b.logRatio) - Math.abs(a.logRatio)),
    };
  });
}
