// The page's clocks, passed in rather than read from globals, so code that
// depends on time (backoff, flush intervals, due times) is testable without
// stubs: a test hands over a clock it moves itself.

export interface Clock {
  /** Wall-clock time (epoch ms): what samples are stamped with. */
  nowMs(): number;
  /** Monotonic time (ms since the page started): what intervals are measured with. */
  monoMs(): number;
  /** Uniform in [0, 1): retry jitter. */
  random(): number;
}

export const browserClock: Clock = {
  nowMs: () => Date.now(),
  monoMs: () => performance.now(),
  random: () => Math.random(),
};
