// GET /api/periodicity: the time charts' bucketed p90 and p99 (the store's
// timeseries query), searched for a repeating period per series, and every
// pair of series' p90 correlated (aligned tails).
import type { PeriodicityResponse } from "../../shared/contract/index.js";
import { alignedTails, detectPeriod } from "../../shared/forensics/periodicity.js";
import type { SampleFilter } from "../store/sample-filter.js";
import type { Queries } from "./queries.js";

export async function periodicityQuery(
  store: Pick<Queries, "timeseries">,
  filter: SampleFilter,
  bucketMs: number | undefined,
  signal: AbortSignal,
): Promise<PeriodicityResponse> {
  const ts = await store.timeseries(filter, { bucketMs, signal });
  const series = ts.series.map((s) => ({
    method: s.method,
    target: s.target,
    p90: detectPeriod(s.p90, ts.bucketMs),
    p99: detectPeriod(s.p99, ts.bucketMs),
  }));
  const pairs: PeriodicityResponse["pairs"] = [];
  for (let i = 0; i < ts.series.length; i++)
    for (let j = i + 1; j < ts.series.length; j++) {
      const a = ts.series[i]!;
      const b = ts.series[j]!;
      pairs.push({ a: `${a.method}@${a.target}`, b: `${b.method}@${b.target}`, ...alignedTails(a.p90, b.p90) });
    }
  pairs.sort((x, y) => Number(y.aligned) - Number(x.aligned) || y.r - x.r);
  return { from: ts.from, to: ts.to, bucketMs: ts.bucketMs, t0: ts.t[0] ?? ts.from, series, pairs };
}
