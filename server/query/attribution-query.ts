// GET /api/attribution: pick one sample of one series (nearest a latency, the
// slowest in a latency band, or the slowest of all in the window), then read
// the same client's samples around it and apply the attribution rules.
import type { AttributionQuery, AttributionResponse } from "../../shared/contract/index.js";
import {
  attribute,
  breakdown,
  seriesKey,
  SAME_SECOND_MS,
  type ForensicSample,
} from "../../shared/forensics/attribution.js";
import type { SampleFilter } from "../store/sample-filter.js";
import type { Store } from "../store/store.js";
import { forensicSample, hasLatency, median } from "./forensic-rows.js";
import type { RawSampleRow } from "../store/page-reader.js";

/** Typical latencies are medians over this long either side of the sample (ms). */
export const TYPICAL_WINDOW_MS = 10 * 60_000;

export async function attributionQuery(
  store: Pick<Store, "openPageReader">,
  filter: SampleFilter,
  q: AttributionQuery,
): Promise<AttributionResponse> {
  const reader = store.openPageReader();
  try {
    let best: RawSampleRow | null = null;
    let bestScore = Infinity;
    for await (const page of reader.pages(filter)) {
      for (const r of page) {
        if (!hasLatency(r)) continue;
        const ms = r[6]!;
        if (q.msMin !== undefined && ms < q.msMin) continue;
        if (q.msMax !== undefined && ms >= q.msMax) continue;
        // Lower score wins: distance to the asked latency, or the slowest.
        const score = q.ms !== undefined ? Math.abs(ms - q.ms) : -ms;
        if (score < bestScore) (best = r), (bestScore = score);
      }
    }
    if (best === null) return { sample: null, breakdown: null, verdict: null, neighbours: [], typicalMs: {} };
    const sample = forensicSample(best);
    const clientId = best[1];
    const sameClient = (fromMs: number, toMs: number): SampleFilter => ({ fromMs, toMs, clientId });

    const neighbours: ForensicSample[] = [];
    const end = sample.t + (sample.ms ?? 0);
    for await (const page of reader.pages(sameClient(sample.t - SAME_SECOND_MS, end + SAME_SECOND_MS)))
      for (const r of page) if (!(r[19] === best[19] && r[3] === best[3])) neighbours.push(forensicSample(r));

    const around = new Map<string, number[]>();
    for await (const page of reader.pages(sameClient(sample.t - TYPICAL_WINDOW_MS, sample.t + TYPICAL_WINDOW_MS))) {
      for (const r of page) {
        if (r[7] !== "ok" || r[6] === null) continue;
        const key = seriesKey(r[4], r[5]);
        let list = around.get(key);
        if (list === undefined) around.set(key, (list = []));
        list.push(r[6]);
      }
    }
    const typicalMs: Record<string, number> = {};
    for (const [key, list] of around) typicalMs[key] = median(list);
    const input = { sample, neighbours, typicalMs };
    // The stored clientId; the route shows it as the public id before it leaves the server.
    return {
      sample: { ...sample, client: clientId },
      breakdown: breakdown(input),
      verdict: attribute(input),
      neighbours,
      typicalMs,
    };
  } finally {
    reader.close();
  }
}
