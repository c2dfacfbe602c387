// How finely the browsers timed the samples of a range, and which engines
// they were: per engine, the sessions whose samples are in the range and the
// coarsest performance.now() step any of them reported. Every latency a page
// measured is a multiple of its step (5 µs in Chromium, 20 µs in Firefox and
// WebKit when cross-origin isolated, 100 µs to 1 ms when not), and the
// histogram page says so where that is coarser than its bins.
//
// Read from the sessions alone: a session overlaps the range when its oldest
// stored sample is not after the range's end and its newest not before its
// start (sessions.first_t / last_t). So the answer costs one row per session,
// however many samples a month holds. Every session of a page probes every
// method the page sends, so a probe series' step is the coarsest of them all.
import type { SessionClock } from "../../shared/contract/stats.js";
import { BROWSER_ENGINES, type BrowserEngine } from "../../shared/methods.js";
import type { ReadPool } from "../store/read-pool.js";
import type { SampleFilter } from "../store/sample-filter.js";
import { notPeerProber } from "./page-sessions.js";

const knownEngine = (e: string | null): BrowserEngine | null =>
  (BROWSER_ENGINES as readonly string[]).includes(e ?? "") ? (e as BrowserEngine) : null;

/**
 * Per engine (null: sessions that did not say), the pages' sessions
 * overlapping the filter's range and their coarsest step. A server's own
 * probes of its peers are a session too, but no browser timed them.
 */
export async function sessionClocksQuery(pool: ReadPool, filter: SampleFilter): Promise<SessionClock[]> {
  const pages = notPeerProber("s.client_id");
  const params: (string | number)[] = [filter.toMs, filter.fromMs, ...pages.params];
  let clientCond = "";
  if (filter.clientId !== undefined) {
    clientCond = "AND s.client_id = ?";
    params.push(filter.clientId);
  }
  const rows = await pool.all<{ engine: string | null; sessions: number | string; us: number | string | null }>(
    `SELECT s.engine AS engine, COUNT(*) AS sessions, MAX(s.timer_resolution_us) AS us FROM sessions s
     WHERE s.first_t <= ? AND s.last_t >= ? AND ${pages.sql} ${clientCond}
     GROUP BY s.engine ORDER BY s.engine IS NULL, s.engine`,
    params,
  );
  return rows.map((r) => ({
    engine: knownEngine(r.engine),
    sessions: Number(r.sessions),
    timerResolutionMs: r.us == null ? null : Number(r.us) / 1000,
  }));
}

/** Coarsest step (ms) among the sessions of `clocks`; null if none reported one. */
export function coarsestResolutionMs(clocks: readonly SessionClock[]): number | null {
  const steps = clocks.map((c) => c.timerResolutionMs).filter((ms): ms is number => ms !== null);
  return steps.length === 0 ? null : Math.max(...steps);
}
