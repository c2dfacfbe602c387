// Latencies a page timed are multiples of its clock's step (5 µs to 1 ms,
// docs/engines.md). On log bins narrower than the step, such values pile into
// the bins holding a multiple and leave the others empty: a comb that looks
// like network behaviour. Bins a few steps wide hold two, three or four
// multiples each, and their counts jump with that number: a comb still. Here
// each bin's count is spread over the stretch of
// latencies its multiples of the step stand for, [(k_lo − ½)·step,
// (k_hi + ½)·step), by overlap with the bins: the histogram the unrounded
// latencies would have drawn, as far as the rounding lets anyone know.

/**
 * Bins narrower than this many steps show the grid: a bin holding n multiples
 * of the step counts about n / (n ± 1) of its neighbour's, 25 % or more apart below 4.
 */
export const COMB_STEPS_MAX = 4;

/** Latency (ms) below which log bins of `binsPerDecade` are narrower than COMB_STEPS_MAX steps of `stepMs`. */
export function quantisedBelowMs(stepMs: number, binsPerDecade: number): number {
  return (COMB_STEPS_MAX * stepMs) / (10 ** (1 / binsPerDecade) - 1);
}

/** Does a series with these bin counts show its grid: a non-empty bin narrower than COMB_STEPS_MAX steps? */
export function coarserThanBins(edges: readonly number[], counts: readonly number[], stepMs: number): boolean {
  if (!(stepMs > 0)) return false;
  for (let i = 0; i < counts.length; i++)
    if ((counts[i] ?? 0) > 0 && edges[i + 1]! - edges[i]! < COMB_STEPS_MAX * stepMs) return true;
  return false;
}

/** A hair of a step: a multiple of the step computed in floating point may land this far on either side. */
const GRID_SLACK = 1e-9;

/**
 * The counts of values quantised to multiples of `stepMs`, spread as above;
 * the total is kept. Counts come back unchanged when no non-empty bin is
 * narrower than COMB_STEPS_MAX steps (the comb cannot show there).
 */
export function spreadQuantised(edges: readonly number[], counts: readonly number[], stepMs: number): number[] {
  if (!coarserThanBins(edges, counts, stepMs)) return [...counts];
  const n = counts.length;
  const lo = edges[0]!;
  const hi = edges[n]!;
  const out = new Array<number>(n).fill(0);
  let j = 0;
  for (let i = 0; i < n; i++) {
    const c = counts[i] ?? 0;
    if (c === 0) continue;
    // Multiples k·step in [edges[i], edges[i + 1]).
    const kLo = Math.ceil(edges[i]! / stepMs - GRID_SLACK);
    const kHi = Math.ceil(edges[i + 1]! / stepMs - GRID_SLACK) - 1;
    if (kHi < kLo) {
      // No multiple in this bin: its values are not on the grid; left where they are.
      out[i]! += c;
      continue;
    }
    const a = Math.max(lo, (kLo - 0.5) * stepMs);
    const b = Math.min(hi, (kHi + 0.5) * stepMs);
    // Bins before a were passed by an earlier bin's stretch, which starts no later.
    while (j > 0 && edges[j]! > a) j--;
    while (j < n - 1 && edges[j + 1]! <= a) j++;
    for (let k = j; k < n && edges[k]! < b; k++) {
      const overlap = Math.min(b, edges[k + 1]!) - Math.max(a, edges[k]!);
      if (overlap > 0) out[k]! += (c * overlap) / (b - a);
    }
  }
  return out;
}
