// Messages between the page and its clock worker.

export interface ClockStart {
  type: "start";
  intervalMs: number;
  /** Slots per tick (probes plus housekeeping); slot i fires at due + i * intervalMs / slots, spreading them over the interval. */
  slots: number;
}

/**
 * Why a due slot could not be sent. `asleep`: the wall clock ran on while the
 * monotonic clock stood still (Linux and macOS stop it during suspend), so the
 * machine slept. `frozen`: both clocks ran but nothing of the page did (the
 * browser froze or stopped the tab, or its main thread was blocked).
 */
export type MissReason = "frozen" | "asleep";

export interface ClockTick {
  type: "tick";
  /** Tick number since t0; with `slot` it names a due time exactly once. */
  k: number;
  slot: number;
  /** When this slot was due (epoch ms). */
  dueMs: number;
  intervalMs: number;
  /**
   * Non-null when the worker woke up after this slot's next due time had
   * already passed: the probe was not sent and is recorded as skipped.
   */
  missed: MissReason | null;
}

export type ClockMessage = ClockStart;
