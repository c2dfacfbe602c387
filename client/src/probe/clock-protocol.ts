// Messages between the page and its clock worker.

export interface ClockStart {
  type: "start";
  intervalMs: number;
  /** Probes per tick; slot i fires at due + i * intervalMs / slots, spreading them over the interval. */
  slots: number;
}

export interface ClockTick {
  type: "tick";
  /** Tick number since t0; with `slot` it names a due time exactly once. */
  k: number;
  slot: number;
  /** When this slot was due (epoch ms). */
  dueMs: number;
  /**
   * The worker woke up after this slot's next due time had already passed
   * (page frozen, machine asleep): the probe was not sent and is recorded as skipped.
   */
  missed: boolean;
}

export type ClockMessage = ClockStart;
