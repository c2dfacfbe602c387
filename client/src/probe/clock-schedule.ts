// The clock's arithmetic, apart from the worker that runs it so it can be
// tested: fixed due times t0 + k * interval + slot offset, each emitted
// exactly once, and a reason for every slot the clock woke up too late for.
import type { ClockTick, MissReason } from "./clock-protocol.js";

/**
 * A gap counts as sleep when the wall clock ran this much further than the
 * monotonic clock (ms); smaller differences are clock adjustments (NTP slews).
 */
export const SLEEP_SKEW_MS = 1000;

/** Where slot `slot` of `slots` falls within an interval (ms after the tick's due time). */
export function slotOffsetMs(slot: number, slots: number, intervalMs: number): number {
  return Math.floor((slot * intervalMs) / slots);
}

export class ClockSchedule {
  /** First due time: the next whole interval, so ticks of different tabs line up. */
  readonly t0: number;
  private nextK = 0;
  private nextSlot = 0;
  private lastWall: number;
  private lastMono: number;

  constructor(
    private readonly intervalMs: number,
    private readonly slots: number,
    wallMs: number,
    monoMs: number,
  ) {
    this.t0 = Math.ceil(wallMs / intervalMs) * intervalMs;
    this.lastWall = wallMs;
    this.lastMono = monoMs;
  }

  dueOf(k: number, slot: number): number {
    return this.t0 + k * this.intervalMs + slotOffsetMs(slot, this.slots, this.intervalMs);
  }

  /** When the next slot is due (epoch ms). */
  get nextDueMs(): number {
    return this.dueOf(this.nextK, this.nextSlot);
  }

  /** Every slot due by wallMs, in order, each exactly once. */
  wake(wallMs: number, monoMs: number): ClockTick[] {
    // Both clocks ran through a frozen page; only the wall clock through a sleeping machine.
    const skew = wallMs - this.lastWall - (monoMs - this.lastMono);
    const reason: MissReason = skew > SLEEP_SKEW_MS ? "asleep" : "frozen";
    this.lastWall = wallMs;
    this.lastMono = monoMs;
    const out: ClockTick[] = [];
    for (;;) {
      const due = this.dueOf(this.nextK, this.nextSlot);
      if (due > wallMs) break;
      // Missed if the same slot of the following tick is already due as well.
      const missed = this.dueOf(this.nextK + 1, this.nextSlot) <= wallMs ? reason : null;
      out.push({ type: "tick", k: this.nextK, slot: this.nextSlot, dueMs: due, intervalMs: this.intervalMs, missed });
      this.nextSlot++;
      if (this.nextSlot === this.slots) {
        this.nextSlot = 0;
        this.nextK++;
      }
    }
    return out;
  }
}
