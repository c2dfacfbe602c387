// How finely the browser timed the samples of a range: the coarsest
// performance.now() step any of their sessions reported. Without
// cross-origin isolation Chromium gives 100 µs, and every latency of such a
// session is a multiple of 0.1 ms; the histogram page says so beside its table.
//
// Read from the sessions alone: a session overlaps the range when its oldest
// stored sample is not after the range's end and its newest not before its
// start (sessions.first_t / last_t). So the answer costs one row per session,
// however many samples a month holds.
import type { ReadPool } from "../store/read-pool.js";
import type { SampleFilter } from "../store/sample-filter.js";

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
       AND s.first_t <= ? AND s.last_t >= ? ${clientCond}`,
    params,
  );
  return row?.us == null ? null : row.us / 1000;
}
