// How finely the browser timed the samples of a range: the coarsest
// performance.now() step any of their sessions reported. Without
// cross-origin isolation Chromium gives 100 µs, and every latency of such a
// session is a multiple of 0.1 ms; the histogram page says so beside its table.
import type { Pace, ReadPool } from "./read-pool.js";
import { sampleWhere, type SampleFilter } from "./sample-filter.js";

/** Sessions per IN (…) list: well under SQLite's 32,766 bound parameters. */
const SESSIONS_PER_QUERY = 500;

/** Coarsest resolution (ms) among the sessions with samples matching the filter; null if none reported one. */
export async function timerResolutionQuery(pool: ReadPool, filter: SampleFilter, pace: Pace): Promise<number | null> {
  const where = sampleWhere(filter);
  const sessions = new Set<number>();
  await pool.scan(`SELECT DISTINCT session FROM samples WHERE ${where.sql}`, where.params, (row) => sessions.add(row[0] as number), pace);
  const ids = [...sessions];
  let coarsestUs: number | null = null;
  for (let i = 0; i < ids.length; i += SESSIONS_PER_QUERY) {
    const part = ids.slice(i, i + SESSIONS_PER_QUERY);
    const [row] = await pool.all<{ us: number | null }>(
      `SELECT MAX(timer_resolution_us) AS us FROM sessions WHERE id IN (${part.map(() => "?").join(", ")})`,
      part,
    );
    if (row?.us != null && (coarsestUs === null || row.us > coarsestUs)) coarsestUs = row.us;
  }
  return coarsestUs === null ? null : coarsestUs / 1000;
}
