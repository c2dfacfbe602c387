// Which path answers a query: rollups (merged per 5 min/hour/6 h/day, raw at the
// edges; percentiles within ±1 %) when the range holds many samples or its
// raw samples are gone, else the exact raw scan (small ranges, lateness
// limits that are not rollup classes, time buckets not a multiple of 5 min).
import {
  DEFAULT_BINS_PER_DECADE,
  type CdfResponse,
  type HeatmapResponse,
  type HistogramResponse,
  type TimeseriesResponse,
  type StatsRow,
  type RacesResponse,
} from "../../shared/contract/index.js";
import { Pace, SLICE_MS } from "../store/pace.js";
import type { ReadPool } from "../store/read-pool.js";
import { classesFor, LEVEL_MS } from "../store/rollup-class.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { newestSampleMs, readAlertBuckets, type BucketRows } from "./alert-window.js";
import { rawCdf, rollupCdf } from "./cdf.js";
import { clientsQuery } from "./clients.js";
import { rawHeatmap, rollupHeatmap } from "./heatmap.js";
import { rawHistogram, rollupHistogram } from "./histogram.js";
import { rawRaces, rollupRaces } from "./races.js";
import { rollupsAnswer, type ReadContext } from "./reader.js";
import { seriesTotals, type SeriesTotals } from "./series-totals.js";
import { targetHealth, type TargetBuckets, type TargetHealthQuery } from "./target-health.js";
import { rawStats, rollupStats } from "./stats.js";
import { rollupTimeAxis } from "./time-axis.js";
import type { StoredClient } from "./stored-client.js";
import { sessionClocksQuery } from "./timer-resolution.js";
import type { SessionClock } from "../../shared/contract/stats.js";
import { rawTimeseries, rollupTimeseries } from "./timeseries.js";
import { changeFinder, type ChangeFilter, type FoundChange } from "../changes/find-changes.js";

/** "auto" chooses per query (above); "rollups" and "raw" force one path (tests compare them, the benchmark times both). */
export type AnswerFrom = "auto" | "rollups" | "raw";

export interface QueryOptions {
  /** Abort to stop the query at its next slice; it then rejects with QueryAbortedError. */
  signal?: AbortSignal | undefined;
}

export interface Queries {
  stats(filter: SampleFilter, options?: QueryOptions): Promise<StatsRow[]>;
  histogram(
    filter: SampleFilter,
    options: QueryOptions & { binsPerDecade?: number | undefined },
  ): Promise<HistogramResponse>;
  cdf(filter: SampleFilter, options?: QueryOptions): Promise<CdfResponse>;
  /** bucketMs undefined: chosen from the range (chooseBucketMs). */
  timeseries(
    filter: SampleFilter,
    options: QueryOptions & { bucketMs?: number | undefined },
  ): Promise<TimeseriesResponse>;
  heatmap(
    filter: SampleFilter,
    options: QueryOptions & { bucketMs?: number | undefined; binsPerDecade?: number | undefined },
  ): Promise<HeatmapResponse>;
  races(filter: SampleFilter, options?: QueryOptions): Promise<RacesResponse>;
  /** Per-series counts and latency rollup of every sample ever stored, from the rollups' total level (/metrics: one row per series). */
  seriesTotals(options?: QueryOptions): Promise<SeriesTotals[]>;
  /** Everyone who has reported, most recently seen first. */
  clients(): Promise<StoredClient[]>;
  /** Per engine, the sessions in the filter's range and their coarsest timer resolution (timer-resolution.ts). */
  sessionClocks(filter: SampleFilter): Promise<SessionClock[]>;
  /** Level shifts found in the rollups (server/changes/), ordered by time. */
  changes(filter: ChangeFilter, options?: QueryOptions): Promise<FoundChange[]>;
  /** Per server and bucket, probes ok and failed and latency percentiles, the filter's methods merged (the status page); from rollups always. */
  targetHealth(filter: SampleFilter, q: TargetHealthQuery, options?: QueryOptions): Promise<TargetBuckets[]>;
  /** The stored 5-minute rollups of the buckets in a range, per series, client and sample population (alert rules). */
  alertBuckets(fromMs: number, toMs: number, options?: QueryOptions & { sliceMs?: number }): Promise<BucketRows>;
  /** The newest page sample's send time (epoch ms), or null (the NoReports dead-man); excludePrefix: client ids that are not pages. */
  newestSampleMs(excludePrefix?: string): Promise<number | null>;
}

/** What the queries read: a store's read port, and the time before which its raw samples are gone. */
export interface QuerySource {
  readonly readPool: ReadPool;
  rawKeptFromMs(): number;
}

export function openQueries(source: QuerySource, answerFrom: AnswerFrom = "auto"): Queries {
  const pool = source.readPool;
  const rawKeptFromMs = () => source.rawKeptFromMs();
  const ctx: ReadContext = { pool, rawKeptFromMs };
  // One finder per store: its hour cells are kept between requests.
  const findChanges = changeFinder(ctx);
  const pace = (o: QueryOptions | undefined) => new Pace(SLICE_MS, o?.signal);
  const useRollups = async (f: SampleFilter): Promise<boolean> => {
    if (answerFrom === "raw" || classesFor(f) === null) return false;
    return answerFrom === "rollups" || rollupsAnswer(ctx, f);
  };
  /** The bucket width a time query will use on the rollup path, or null when rollups cannot answer it. */
  const rollupBucketMs = async (f: SampleFilter, bucketMs: number | undefined): Promise<number | null> => {
    if (!(await useRollups(f))) return null;
    const axis = await rollupTimeAxis(ctx, f, bucketMs);
    return axis.bucketMs % LEVEL_MS[0] === 0 ? axis.bucketMs : null;
  };
  return {
    stats: async (f, o) => ((await useRollups(f)) ? rollupStats(ctx, f, pace(o)) : rawStats(pool, f, pace(o))),
    histogram: async (f, o) => {
      const bins = o.binsPerDecade ?? DEFAULT_BINS_PER_DECADE;
      return (await useRollups(f)) ? rollupHistogram(ctx, f, bins, pace(o)) : rawHistogram(pool, f, bins, pace(o));
    },
    cdf: async (f, o) => ((await useRollups(f)) ? rollupCdf(ctx, f, pace(o)) : rawCdf(pool, f, pace(o))),
    timeseries: async (f, o) => {
      const bucketMs = await rollupBucketMs(f, o.bucketMs);
      return bucketMs !== null
        ? rollupTimeseries(ctx, f, bucketMs, pace(o))
        : rawTimeseries(pool, f, o.bucketMs, pace(o));
    },
    heatmap: async (f, o) => {
      const bins = o.binsPerDecade ?? DEFAULT_BINS_PER_DECADE;
      const bucketMs = await rollupBucketMs(f, o.bucketMs);
      return bucketMs !== null
        ? rollupHeatmap(ctx, f, bucketMs, bins, pace(o))
        : rawHeatmap(pool, f, o.bucketMs, bins, pace(o));
    },
    races: async (f, o) => ((await useRollups(f)) ? rollupRaces(ctx, f, pace(o)) : rawRaces(pool, f, pace(o))),
    seriesTotals: (o) => seriesTotals(ctx, pace(o)),
    clients: () => clientsQuery(pool),
    sessionClocks: (f) => sessionClocksQuery(pool, f),
    changes: (f, o) => findChanges(f, pace(o)),
    targetHealth: (f, q, o) => targetHealth(ctx, f, q, pace(o)),
    alertBuckets: (fromMs, toMs, o) =>
      readAlertBuckets(pool, fromMs, toMs, new Pace(o?.sliceMs ?? SLICE_MS, o?.signal)),
    newestSampleMs: (excludePrefix) => newestSampleMs(pool, excludePrefix),
  };
}
