// Per-series totals of every sample ever stored: the aggregate rows of the
// rollups' total level (rollup-class.ts TOTAL_LEVEL), one per series, kept in
// the ingest transaction. What /metrics reads on every scrape: its cost
// follows the number of series, not of samples or days. Counts, sum, min and
// max are exact; the latency histogram is the rollup's (scale-7 buckets,
// shared/rollup.ts).
import type { Rollup } from "../../shared/rollup.js";
import type { Pace } from "../store/pace.js";
import { ANY_CLASS, ANY_CLIENT, emptyCell, mergeStored, type StoredCell } from "../store/rollup-batch.js";
import { TOTAL_LEVEL } from "../store/rollup-class.js";
import type { ReadContext, SeriesInfo } from "./reader.js";

export interface SeriesTotals {
  method: string;
  target: string;
  /** Latencies of ok samples (µs): count is /api/stats' count. */
  ok: Rollup;
  /** Timeouts stored with their timeout value. */
  timeouts: number;
  /** timeout + error samples: /api/stats' failures. */
  failures: number;
  skipped: number;
}

export async function seriesTotals(ctx: ReadContext, pace: Pace): Promise<SeriesTotals[]> {
  const series = new Map(
    (await ctx.pool.all<SeriesInfo>("SELECT id, method, target FROM series", [])).map((s) => [s.id, s]),
  );
  const out: SeriesTotals[] = [];
  await ctx.pool.scan(
    `SELECT series, failures, skipped, lat, tmo FROM rollups
     WHERE level = ${TOTAL_LEVEL} AND client = ${ANY_CLIENT} AND class = ${ANY_CLASS} AND start_ms = 0`,
    [],
    (row) => {
      const [id, failures, skipped, lat, tmo] = row as [number, number, number, Uint8Array | null, Uint8Array | null];
      const s = series.get(id);
      if (s === undefined) return;
      const c = emptyCell(TOTAL_LEVEL, 0, id, ANY_CLIENT, ANY_CLASS);
      mergeStored(c, { failures, skipped, lat, tmo, wins_ws: 0, wins_jsonp: 0, margin: null } satisfies StoredCell);
      out.push({
        method: s.method,
        target: s.target,
        ok: c.lat,
        timeouts: c.tmo.count,
        failures: c.failures,
        skipped: c.skipped,
      });
    },
    pace,
  );
  return out;
}
