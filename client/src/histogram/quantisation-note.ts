// The sentence under the histogram when some series' latencies sit on a grid
// coarser than the bins they fall in: the page's clock only had that step, so
// the series is drawn spread over each step (shared/quantisation.ts), and the
// reader is told, lest a smooth curve be taken for a measured one.
import type { HistogramResponse } from "../../../shared/contract/index.js";
import { formatMs } from "../../../shared/format.js";
import { coarserThanBins, quantisedBelowMs } from "../../../shared/quantisation.js";
import { seriesLabel } from "./series-label.js";

export function quantisationNote(
  h: HistogramResponse,
  stepMsOf: (method: string, target: string) => number | null,
): string {
  const byStep = new Map<number, string[]>();
  for (const s of h.series) {
    const step = stepMsOf(s.method, s.target);
    if (step === null || !coarserThanBins(h.edges, s.counts, step)) continue;
    byStep.set(step, [...(byStep.get(step) ?? []), seriesLabel(s.method, s.target)]);
  }
  return [...byStep]
    .map(
      ([step, names]) =>
        `${names.join(", ")}: latencies are multiples of ${formatMs(step)} (the page's clock step), which ` +
        `makes a comb of the bins below ${formatMs(quantisedBelowMs(step, h.binsPerDecade))}; drawn spread over each step.`,
    )
    .join(" ");
}
