// Sorting a large series without one long pause: a native sort of 125k
// latencies takes 10–50 ms on a busy machine, long enough to show in the echo
// tail. Sort runs of RUN values natively, then merge them pairwise, yielding
// to the event loop whenever the slice is spent.
import type { Pace } from "../store/pace.js";

/** Values sorted natively in one go; ~0.5 ms each. */
export const RUN = 8192;

/** Ascending copy of `values`, sorted in slices. */
export async function slicedSort(values: ArrayLike<number>, pace: Pace): Promise<Float64Array> {
  const n = values.length;
  let a = Float64Array.from(values);
  if (n <= RUN) return a.sort();
  for (let start = 0; start < n; start += RUN) {
    a.subarray(start, Math.min(n, start + RUN)).sort();
    await pace.maybeYield();
  }
  let b = new Float64Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (k < hi) {
        // Merge in stretches of 4096 so the clock is read rarely.
        const stop = Math.min(hi, k + 4096);
        while (k < stop) b[k++] = j >= hi || (i < mid && a[i]! <= a[j]!) ? a[i++]! : a[j++]!;
        await pace.maybeYield();
      }
    }
    [a, b] = [b, a];
  }
  return a;
}
