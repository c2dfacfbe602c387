// The health monitor's windows and thresholds, in one place (docs/alerts.md
// explains each). Times are ms; shares 0..1. Latency thresholds are the
// attribution rules' own (shared/forensics/attribution.ts), so "slow" means
// the same on the incident list as in "why was this slow?".
import {
  CLIENT_LATE_MS_MIN,
  SERVER_MS_MIN,
  SLOW_EXCESS_MS_MIN,
  SLOW_RATIO,
} from "../../shared/forensics/attribution.js";

export { CLIENT_LATE_MS_MIN, SERVER_MS_MIN, SLOW_EXCESS_MS_MIN, SLOW_RATIO };

/** A source's view of a target is judged from its probes of the last this long, up to its newest one. */
export const JUDGE_WINDOW_MS = 4000;
/** Judged probes a source needs in the window to have a view at all. */
export const JUDGED_MIN = 2;
/**
 * A source sees a target down when its newest this many judged probes all
 * failed: a tick and a bit of a page's three methods, two of the server's own.
 */
export const DOWN_RUN_MIN = 4;
/** A source sees a target degraded when at least this share of its judged probes in the window failed … */
export const DEGRADED_FAILURE_SHARE = 0.25;
/** … or at least this share of its ok probes were slow against its own usual latency (and at least SLOW_OK_MIN of them). */
export const SLOW_SHARE = 0.5;
export const SLOW_OK_MIN = 3;
/** Usual latency per (source, target, method): the median of this many ok probes judged while the view was up. */
export const TYPICAL_KEPT = 60;
/** … known once this many are kept. */
export const TYPICAL_MIN = 10;
/**
 * Sources are compared at the same moment: one whose newest probe of the
 * target is older than the newest of any source by more than this is not
 * current (a page reports every 5 s; its failures come at once in health notes).
 */
export const CURRENT_LAG_MS = 10_000;
/** A source heard from (a note, a report, a probe) longer ago than this is not current either. */
export const STALE_MS = 30_000;
/** Observations, their identities and the usual latencies are kept this long after they were received. */
export const RETAIN_MS = 120_000;
/** Observations a window keeps at most (a page probing many servers at a short interval). */
export const WINDOW_OBS_MAX = 2000;
/** An observation dated further ahead of the server's clock than this is not taken (ms). */
export const AHEAD_MS_MAX = 60_000;

/** How often every target is judged. */
export const EVALUATE_MS = 1000;
/** A target must stay down or degraded this long before an incident opens … */
export const OPEN_AFTER_MS = 2000;
/** … and stay better than the incident's kind this long before it closes (hysteresis). */
export const CLOSE_AFTER_MS = 5000;
/** An open incident whose target nobody reports on any more is closed after this long. */
export const UNKNOWN_CLOSE_AFTER_MS = 60_000;
/** Peak figures of an open incident are written back at most this often (its events say more at once). */
export const PEAK_WRITE_MS = 10_000;

/** Pings to a client judged with its view: those of the last this long. */
export const PING_WINDOW_MS = 10_000;
/** The path to a client is judged broken when at least this share of its pings failed or were slow. */
export const PING_BAD_SHARE = 0.5;
