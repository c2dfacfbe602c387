// How finely the browser timed the samples of a range: the coarsest
// performance.now() step any of their sessions reported. Without
// cross-origin isolation Chromium gives 100 µs, and every latency of such a
// session is a multiple of 0.1 ms; the histogram page says so beside its table.
//
// Read from the sessions, not the samples: a session overlaps the range when
// its first sample (lowest seq) is not after the range's end and its newest
// (highest seq) not before its start: two primary-key probes per session. So the answer costs one probe per session, however
// many samples a month holds.
import type { ReadPool } from "./read-pool.js";
import type { SampleFilter } from "./sample-filter.js";

/** Coarsest resolution (ms) among the sessions overlapping the filter's range; null if none reported one. */
export async function timerResolutionQuery(pool: ReadPool, filter: SampleFilter): Promise<number | null> {
  const params: (string | number)[] = [filter.toMs, filter.fromMs];
  let clientCond = "";
  if (filter.clientId !== undefined) {
    clientCond = "AND s.client_id = ?";
    params.push(filter.clientId);
  }
  const [row] = await pool.all<{ us: number | null }>(
    `SELECT MAX(s.timer_resolution_us) AS us FROM sessions s
     WHERE s.timer_resolution_us IS NOT NULL
       AND (SELECT t FROM raw_samples WHERE session = s.id ORDER BY seq ASC LIMIT 1) <= ?
       AND (SELECT t FROM raw_samples WHERE session = s.id ORDER BY seq DESC LIMIT 1) >= ? ${clientCond}`,
    params,
  );
  return row?.us == null ? null : row.us / 1000;
}
