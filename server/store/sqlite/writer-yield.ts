// The writer thread gives way to the event loop. Every /echo and /ws answer
// waits until the event loop has a core; on a machine of two, the writer
// thread running a batch is often what holds the other one.
//
// On Linux the writer runs as SCHED_IDLE while it keeps up: any normal thread
// that wakes (the event loop, for an echo) takes its core at once. Under
// SCHED_BATCH, which the writer used before, it only never preempted others
// when woken itself; when the event loop woke, the batch thread kept its
// slice and the echo waited (ingest-stall's load, 20,000 samples/s, three
// runs each: echo p99 1.10-1.39 ms as SCHED_BATCH, 0.73-0.87 ms as
// SCHED_IDLE, against a quiet 0.63-1.24; docs/performance.md).
//
// An idle thread gets a core only when nothing else wants it, so on a machine
// whose cores other work keeps busy the writer would fall behind. The event
// loop watches how long writes wait: one that has waited lagMs steps the
// writer up to SCHED_BATCH (its earlier policy), and it goes back to
// SCHED_IDLE once writes have been answered in time for holdMs.
//
// Leaving SCHED_IDLE needs a privilege (../../platform/thread-policy.ts
// mayLeaveIdle): a server without it keeps its writer at SCHED_BATCH all the
// time, so it cannot get stuck idle. Where thread policies do not apply (not
// Linux) the writer keeps the default policy and nothing is watched.
import { processMayLeaveIdle, setThreadPolicy, type ThreadPolicy } from "../../platform/thread-policy.js";

export interface WriterYieldOptions {
  /** A write waiting this long (ms) steps the writer up to SCHED_BATCH. Default WRITER_LAG_MS_DEFAULT. */
  lagMs: number;
  /** The writer goes back to SCHED_IDLE after writes have been answered within lagMs for this long (ms). Default WRITER_HOLD_MS_DEFAULT. */
  holdMs: number;
}
/** A page's report waits for its commit; 100 ms is far inside its timeout, and rare at a writer that keeps up. */
export const WRITER_LAG_MS_DEFAULT = 100;
/** Long enough that a machine busy for a while does not flip the policy (one `chrt` each) every few batches. */
export const WRITER_HOLD_MS_DEFAULT = 10_000;

/** The event loop's side: told of each write sent and answered, it moves the writer between the two policies. */
export interface WriterLagWatch {
  sent(): void;
  /** After the write is no longer pending; sentAtMs from the same clock as `now`. */
  settled(sentAtMs: number): void;
  stop(): void;
}

/**
 * The policy decisions alone, over a clock and a setter (tests pass both):
 * starts from "idle", which the caller has already set.
 */
export function watchWriterLag(
  o: WriterYieldOptions & {
    now: () => number;
    oldestPendingSentAtMs: () => number | undefined;
    setPolicy: (p: ThreadPolicy) => void;
  },
): WriterLagWatch {
  let policy: ThreadPolicy = "idle";
  let laggedAtMs = -Infinity;
  let timer: NodeJS.Timeout | null = null;
  const lagged = () => {
    laggedAtMs = o.now();
    if (policy === "idle") o.setPolicy((policy = "batch"));
  };
  /** Look again when the oldest pending write will have waited lagMs; starved, the writer answers nothing, so only a timer notices. */
  const arm = () => {
    const oldest = o.oldestPendingSentAtMs();
    if (timer !== null || policy !== "idle" || oldest === undefined) return;
    timer = setTimeout(check, Math.max(0, oldest + o.lagMs - o.now()));
    timer.unref();
  };
  const check = () => {
    timer = null;
    const oldest = o.oldestPendingSentAtMs();
    if (oldest !== undefined && o.now() - oldest >= o.lagMs) lagged();
    arm();
  };
  return {
    sent: arm,
    settled(sentAtMs) {
      const now = o.now();
      const oldest = o.oldestPendingSentAtMs();
      if (now - sentAtMs >= o.lagMs || (oldest !== undefined && now - oldest >= o.lagMs)) lagged();
      else if (policy === "batch" && now - laggedAtMs >= o.holdMs) {
        o.setPolicy((policy = "idle"));
        arm(); // the writes still pending are timed from here on
      }
    },
    stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

const NO_WATCH: WriterLagWatch = { sent() {}, settled() {}, stop() {} };

/**
 * Sets the writer thread's first policy and returns what watches its lag:
 * SCHED_IDLE with the watch where the process may step it back up, SCHED_BATCH
 * (and no watch) where it may not. `warn` hears why a policy could not be set.
 */
export async function manageWriterPolicy(
  tid: string | null,
  o: WriterYieldOptions & { oldestPendingSentAtMs: () => number | undefined; warn: (line: string) => void },
): Promise<WriterLagWatch> {
  if (tid === null) return NO_WATCH;
  if (!processMayLeaveIdle()) {
    const why = await setThreadPolicy(tid, "batch");
    if (why !== null) o.warn(`the writer thread keeps the default scheduling policy (${why})`);
    return NO_WATCH;
  }
  const why = await setThreadPolicy(tid, "idle");
  if (why !== null) {
    o.warn(`the writer thread keeps the default scheduling policy (${why})`);
    return NO_WATCH;
  }
  // One `chrt` at a time, so a step up and the step down after it land in their order.
  let chain = Promise.resolve();
  return watchWriterLag({
    ...o,
    now: () => performance.now(),
    setPolicy: (p) => {
      chain = chain
        .then(() => setThreadPolicy(tid, p))
        .then((err) => void (err !== null && o.warn(`the writer thread's policy stays as it was (${err})`)));
    },
  });
}
