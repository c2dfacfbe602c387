// The exact path under every endpoint (queries.ts chooses it for ranges with
// few samples, or filters that are not rollup classes): one filtered SELECT over the
// stored samples, read in slices through the store's read port (../store/raw-reads.ts),
// each row handed to the endpoint's visitor, grouped per (method, target).
import { binEdge, TCP_MIN_RTT_SERIES, type SeriesKey } from "../../shared/contract/index.js";
import { methodOrder } from "../../shared/methods.js";
import type { Pace } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { seriesWanted, type SampleFilter } from "../store/sample-filter.js";

/**
 * One row as a series sees it. `inTail`: the row is part of the latency
 * distribution: an ok answer, or with `timeoutsInTail` a timeout at the
 * timeout value it was stored with (the slowest tail a user can have).
 */
export type Visit = (
  t: number,
  method: string,
  target: string,
  outcome: string,
  ms: number | null,
  inTail: boolean,
) => void;
type SampleRow = [number, string, string, string, number | null, number | null];

export async function scanSamples(pool: ReadPool, filter: SampleFilter, pace: Pace, visit: Visit): Promise<void> {
  const wanted = seriesWanted(filter);
  const wantOwn = wanted("tcprtt");
  const wantMin = wanted(TCP_MIN_RTT_SERIES);
  const timeoutsInTail = filter.timeoutsInTail === true;
  await pool.raw.scanSamples(
    filter,
    ["t", "method", "target", "outcome", "ms", "minrtt"],
    (row) => {
      const [t, method, target, outcome, ms, minrtt] = row as SampleRow;
      // Only tcprtt rows can be there for their derived series alone.
      const inTail = ms !== null && (outcome === "ok" || (timeoutsInTail && outcome === "timeout"));
      if (method !== "tcprtt" || wantOwn) visit(t, method, target, outcome, ms, inTail);
      // The kernel's min RTT is a series of its own beside the smoothed RTT.
      if (minrtt !== null && wantMin) visit(t, TCP_MIN_RTT_SERIES, target, "ok", minrtt, true);
    },
    pace,
  );
}

/** Per-(method, target) state, listed in the table's order: by target, then method. */
export class SeriesMap<S> {
  // Two levels instead of one "method/target" key: no string built per row.
  private readonly byMethod = new Map<string, Map<string, SeriesKey & { state: S }>>();
  constructor(private readonly make: () => S) {}

  get(method: string, target: string): S {
    let byTarget = this.byMethod.get(method);
    if (byTarget === undefined) {
      byTarget = new Map();
      this.byMethod.set(method, byTarget);
    }
    let e = byTarget.get(target);
    if (e === undefined) {
      e = { method, target, state: this.make() };
      byTarget.set(target, e);
    }
    return e.state;
  }

  sorted(): (SeriesKey & { state: S })[] {
    return [...this.byMethod.values()]
      .flatMap((m) => [...m.values()])
      .sort(
        (a, b) =>
          a.target.localeCompare(b.target) ||
          methodOrder(a.method) - methodOrder(b.method) ||
          a.method.localeCompare(b.method),
      );
  }
}

export const isFailure = (outcome: string) => outcome === "timeout" || outcome === "error";

/** Edges of bins lo..hi inclusive (hi - lo + 2 edges); none when no sample fell in any bin. */
export function binEdges(lo: number, hi: number, binsPerDecade: number): number[] {
  if (lo > hi) return [];
  const edges: number[] = [];
  for (let k = lo; k <= hi + 1; k++) edges.push(binEdge(k, binsPerDecade));
  return edges;
}
