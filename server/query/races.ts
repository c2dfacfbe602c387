// GET /api/races. From rollups: availability counts exact; best-of-two's
// percentiles, its legs' and the margins' within ±1 %. On the exact path
// from every probe of the range (race-tally.ts).
import type { AvailabilityRow, Best2Row, RacesResponse, SingleMethod } from "../../shared/contract/index.js";
import type { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { storedMethodOf, type SampleFilter } from "../store/sample-filter.js";
import { PROBE_METHODS } from "../../shared/methods.js";
import { mergedCell, percentileMs } from "./cells.js";
import { AVAILABILITY_METHODS, RaceTally } from "./race-tally.js";
import { readMerged, type ReadContext } from "./reader.js";
import { slicedSort } from "./sliced-sort.js";
import type { Rollup } from "../../shared/rollup.js";

const pairOf = (r: Rollup | undefined) => ({
  p50: r === undefined ? null : percentileMs(r, 50),
  p99: r === undefined ? null : percentileMs(r, 99),
});
const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
const minOf = (values: (number | null)[]) => {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : Math.min(...known);
};

export async function rollupRaces(ctx: ReadContext, filter: SampleFilter, pace: Pace): Promise<RacesResponse> {
  const merged = await readMerged(ctx, filter, null, pace);
  const avail = new Map<string, { ok: number; failures: number }>();
  const ok = new Map<string, Rollup>();
  const races: { target: string; cell: ReturnType<typeof mergedCell> }[] = [];
  for (const { series, buckets } of merged.values()) {
    if (!AVAILABILITY_METHODS.has(series.method)) continue;
    const c = mergedCell(buckets);
    const a = avail.get(series.target) ?? { ok: 0, failures: 0 };
    a.ok += c.lat.count;
    a.failures += c.failures;
    if (a.ok + a.failures > 0) avail.set(series.target, a);
    ok.set(`${series.method} ${series.target}`, c.lat);
    if (series.method === "best2" && c.lat.count + c.failures > 0) races.push({ target: series.target, cell: c });
  }
  const availability: AvailabilityRow[] = [...avail]
    .map(([target, a]) => ({ target, ok: a.ok, failures: a.failures, share: a.ok / (a.ok + a.failures) }))
    .sort((x, y) => x.target.localeCompare(y.target));
  const best2: Best2Row[] = races
    .map(({ target, cell }) => {
      // "A+B": the WebSocket leg went to A, the JSONP leg to B.
      const [wsServer = target, jsonpServer = wsServer] = target.split("+");
      const single: SingleMethod[] = (
        [
          ["ws", wsServer],
          ["jsonp", jsonpServer],
        ] as const
      ).map(([method, t]) => {
        const r = ok.get(`${method} ${t}`);
        return { method, target: t, count: r?.count ?? 0, ...pairOf(r) };
      });
      const own = pairOf(cell.lat);
      return {
        target,
        count: cell.lat.count,
        failures: cell.failures,
        wins: { ws: cell.winsWs, jsonp: cell.winsJsonp },
        ...own,
        single,
        saved: {
          p50: minus(minOf(single.map((s) => s.p50)), own.p50),
          p99: minus(minOf(single.map((s) => s.p99)), own.p99),
        },
        margin: pairOf(cell.margin),
      };
    })
    .sort((x, y) => x.target.localeCompare(y.target));
  return { from: filter.fromMs, to: filter.toMs, availability, best2 };
}

/** The exact path: GET /api/races over the stored samples, read in slices on a read-only connection. */
export async function rawRaces(pool: ReadPool, filter: SampleFilter, pace: Pace): Promise<RacesResponse> {
  const tally = new RaceTally();
  // The races' methods, within the filter's own.
  const methods = PROBE_METHODS.filter(
    (m) =>
      filter.methods === undefined || filter.methods.length === 0 || filter.methods.map(storedMethodOf).includes(m),
  );
  if (methods.length > 0)
    await pool.raw.scanSamples(
      { ...filter, methods },
      ["method", "target", "outcome", "ms", "winner", "other_ms"],
      (row) => {
        const [method, target, outcome, ms, winner, otherMs] = row as [
          string,
          string,
          string,
          number | null,
          string | null,
          number | null,
        ];
        tally.add({ method, target, outcome, ms, winner, otherMs });
      },
      pace,
    );
  const figures = await tally.finish((values) => slicedSort(values, pace));
  return { from: filter.fromMs, to: filter.toMs, ...figures };
}
