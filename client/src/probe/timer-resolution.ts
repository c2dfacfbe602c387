// How finely this page can time anything: the smallest step performance.now()
// takes. Chromium gives 5 µs to a cross-origin isolated page and 100 µs to
// any other, so every latency the page measures is a multiple of it. Measured
// rather than inferred from `crossOriginIsolated`, since browsers differ.

/** Distinct steps to observe before answering. */
export const RESOLUTION_STEPS = 50;
/** The measurement gives up after this long (ms); at 100 µs, 50 steps take ~5 ms. */
export const RESOLUTION_BUDGET_MS = 30;

/** Readings at most, so a clock that never moves cannot hold the page (~10 ms of reads). */
export const RESOLUTION_READS_MAX = 200_000;

/** The smallest non-zero difference between consecutive readings of `monoMs` (ms), or null if it never moved. */
export function measureTimerResolutionMs(
  monoMs: () => number,
  steps = RESOLUTION_STEPS,
  budgetMs = RESOLUTION_BUDGET_MS,
): number | null {
  const start = monoMs();
  let last = start;
  let smallest = Number.POSITIVE_INFINITY;
  let seen = 0;
  // Bounded by the step count, the time budget and the number of reads.
  for (let reads = 0; seen < steps && reads < RESOLUTION_READS_MAX; reads++) {
    const now = monoMs();
    if (now !== last) {
      smallest = Math.min(smallest, now - last);
      seen++;
      last = now;
    }
    if (now - start >= budgetMs) break;
  }
  // Rounded to a nanosecond: the difference of two doubles carries float noise.
  return Number.isFinite(smallest) ? Math.round(smallest * 1e6) / 1e6 : null;
}
