// Compare two latency series: does one beat the other, at the median and in
// the tail, by how much, and is it more than noise? The answer a newcomer reads
// is one sentence built from the intervals and the rank test.
import { samplesNeededFor } from "../stats.js";
import { bootstrapPercentileDiff, CONFIDENCE_DEFAULT, type BootstrapOptions, type Interval } from "./bootstrap.js";
import { mannWhitneyU, type RankTest } from "./rank-test.js";

/** Below this p-value the rank test calls a difference "not noise". */
export const SIGNIFICANCE_ALPHA = 0.05;

export interface Comparison {
  /** Sizes of the two series. */
  countA: number;
  countB: number;
  /** Median of A minus median of B (ms): negative means A is faster. */
  medianDiff: Interval;
  /** p99 of A minus p99 of B (ms). */
  p99Diff: Interval;
  rank: RankTest;
  confidence: number;
  sentence: string;
}

function formatMs(ms: number): string {
  const a = Math.abs(ms);
  return a >= 100 ? a.toFixed(0) : a >= 10 ? a.toFixed(1) : a.toFixed(2);
}

function formatP(p: number): string {
  return p < 0.0001 ? "p < 0.0001" : `p = ${p.toPrecision(2)}`;
}

/** "faster … by 95–130 ms", "slower … by …", or null when the interval holds 0. */
function direction(d: Interval): { word: "faster" | "slower"; range: string } | null {
  if (d.hi < 0) return { word: "faster", range: `${formatMs(d.hi)}–${formatMs(d.lo)} ms` };
  if (d.lo > 0) return { word: "slower", range: `${formatMs(d.lo)}–${formatMs(d.hi)} ms` };
  return null;
}

/** The one sentence: the tail first (what users feel), then the median, then the rank test. */
export function describeComparison(labelA: string, labelB: string, c: Omit<Comparison, "sentence">): string {
  const pct = `${Math.round(c.confidence * 100)} % CI`;
  const tail = direction(c.p99Diff);
  const body = direction(c.medianDiff);
  const parts: string[] = [];
  parts.push(
    tail === null
      ? `${labelA} and ${labelB} do not differ at p99 beyond noise (${pct} ${signed(c.p99Diff.lo)} to ${signed(c.p99Diff.hi)} ms)`
      : `${labelA} is ${tail.word} than ${labelB} at p99 by ${tail.range} (${pct})`,
  );
  parts.push(body === null ? `the medians do not differ beyond noise` : `${body.word} at the median by ${body.range}`);
  const noise = c.rank.p < SIGNIFICANCE_ALPHA ? "not noise" : "could be noise";
  let s = `${parts.join("; ")}. Rank test (Mann–Whitney): ${formatP(c.rank.p)}, ${noise}.`;
  const needed = samplesNeededFor(99);
  if (Math.min(c.countA, c.countB) < needed)
    s += ` With fewer than ${needed.toLocaleString("en")} samples a side, p99 is close to the maximum: read it with care.`;
  return s;
}

function signed(ms: number): string {
  return `${ms < 0 ? "−" : "+"}${formatMs(ms)}`;
}

export function compareSeries(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  labels: { a: string; b: string },
  options: BootstrapOptions,
): Comparison {
  const base = {
    countA: a.length,
    countB: b.length,
    medianDiff: bootstrapPercentileDiff(a, b, 50, options),
    p99Diff: bootstrapPercentileDiff(a, b, 99, options),
    rank: mannWhitneyU(a, b),
    confidence: options.confidence ?? CONFIDENCE_DEFAULT,
  };
  return { ...base, sentence: describeComparison(labels.a, labels.b, base) };
}
