// Splitting a time range into what answers it fastest: whole days, 6 hours, hours and
// 5-minute spans from rollups, the partial spans at its edges from raw samples.
import { LEVEL_MS } from "../store/rollup-class.js";

/** A half-open span [fromMs, toMs) read at one level: 0–2 from rollups (LEVEL_MS), RAW from raw samples. */
export interface Piece {
  level: number;
  fromMs: number;
  toMs: number;
}
export const RAW = -1;
const HOUR = 1;

const floorTo = (t: number, w: number) => Math.floor(t / w) * w;
const ceilTo = (t: number, w: number) => Math.ceil(t / w) * w;

/**
 * Pieces covering [fromMs, toMs), coarsest where aligned. Before `rawFromMs`
 * raw samples and 5-minute rollups are gone: that part is widened to whole
 * hours (answered at hour resolution rather than silently dropped).
 */
export function decompose(fromMs: number, toMs: number, rawFromMs: number): Piece[] {
  const out: Piece[] = [];
  if (fromMs >= toMs) return out;
  const hourMs = LEVEL_MS[HOUR];
  if (fromMs < rawFromMs) {
    const split = ceilTo(Math.min(toMs, rawFromMs), hourMs);
    cover(floorTo(fromMs, hourMs), split, HOUR, out);
    fromMs = split;
  }
  if (fromMs < toMs) cover(fromMs, toMs, 0, out);
  return out;
}

/** Covers [a, b) with levels ≥ minLevel, and raw at the edges when minLevel is 0 (else whole buckets of minLevel). */
function cover(a: number, b: number, minLevel: number, out: Piece[]): void {
  if (a >= b) return;
  for (let level = LEVEL_MS.length - 1; level >= minLevel; level--) {
    const w = LEVEL_MS[level]!;
    const lo = ceilTo(a, w);
    const hi = floorTo(b, w);
    if (lo < hi) {
      cover(a, lo, minLevel, out);
      out.push({ level, fromMs: lo, toMs: hi });
      cover(hi, b, minLevel, out);
      return;
    }
  }
  if (minLevel === 0) out.push({ level: RAW, fromMs: a, toMs: b });
  else {
    const w = LEVEL_MS[minLevel]!;
    out.push({ level: minLevel, fromMs: floorTo(a, w), toMs: ceilTo(b, w) });
  }
}

/** [from, to] inclusive minus the excluded windows (inclusive), as half-open spans. */
export function spansOf(
  fromMs: number,
  toMs: number,
  exclude: readonly { fromMs: number; toMs: number }[] = [],
): [number, number][] {
  let spans: [number, number][] = [[fromMs, toMs + 1]];
  for (const w of exclude) {
    const next: [number, number][] = [];
    for (const [a, b] of spans) {
      if (w.toMs + 1 <= a || w.fromMs >= b) next.push([a, b]);
      else {
        if (a < w.fromMs) next.push([a, w.fromMs]);
        if (w.toMs + 1 < b) next.push([w.toMs + 1, b]);
      }
    }
    spans = next;
  }
  return spans;
}

/** Pieces of one level joined where they touch or overlap, so each run is one SELECT and no bucket is read twice. */
export function runsOf(pieces: readonly Piece[]): Piece[] {
  const sorted = [...pieces].sort((x, y) => x.level - y.level || x.fromMs - y.fromMs);
  const out: Piece[] = [];
  for (const p of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last.level === p.level && last.toMs >= p.fromMs) last.toMs = Math.max(last.toMs, p.toMs);
    else out.push({ ...p });
  }
  return out;
}
