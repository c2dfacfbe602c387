// When the page does its own work. A probe measures whatever shares its
// moment: reporting (JSON, an IndexedDB read, a POST whose parse and SQLite
// commit sit on the probed server's event loop), IndexedDB writes, drawing
// the live view, reconnecting channels, clearing Resource Timing. So none of
// that runs in a task that sends a probe.
//
// The clock gets one slot more than there are probes; that last slot, in the
// middle of the largest gap (between the tick's last probe and the next
// tick's first), is housekeeping's: IndexedDB writes, live view, channels,
// Resource Timing. The report needs the most room (a loaded server may take
// 100 ms to commit it), so it starts earlier in the same gap: as soon as the
// tick's last probe has been sent and no probe to the report's server (the
// home server) is in flight, i.e. when that probe settles. Its request must
// start REPORT_LEAD_MS before the next probe, or it waits for the next gap
// (report/outbox.ts, at most POSTPONE_MAX in a row). If probes to its server
// are still in flight at the housekeeping slot, it waits for them to settle,
// for at most HOUSEKEEPING_DEFER_MAX housekeeping slots.
import type { Clock } from "../common/clock.js";
import type { ClockTick } from "./clock-protocol.js";
import { slotOffsetMs } from "./clock-schedule.js";

/** Housekeeping slots a report may wait for a probe to its server to settle, before it goes anyway. */
export const HOUSEKEEPING_DEFER_MAX = 3;
/**
 * A report's request must start at least this long before the next probe
 * (ms): on loopback a report takes ~10–25 ms, the first on a connection ~60.
 * Capped at half the gap for short intervals.
 */
export const REPORT_LEAD_MS = 60;
/**
 * A gap shorter than this (ms) has no room for a report at all (intervals of
 * tens of ms, as soak tests run): reports then go without a deadline, and a
 * backlog drains batch after batch, as fast as the server takes it.
 */
export const REPORT_GAP_MS_MIN = 2 * REPORT_LEAD_MS;

export interface SchedulerOptions {
  /** Probe slots per tick; the clock runs with probeSlots + 1 (see clockSlots). */
  probeSlots: number;
  clock: Clock;
  probe(tick: ClockTick): void;
  /** Probes in flight now to the server the report goes to. */
  reportServerProbesInFlight(): number;
  /** Work on the page alone: IndexedDB writes, live view, channels, Resource Timing. */
  local(): void;
  /**
   * A report to the home server, if one is due; its request must start by
   * deadlineMs (epoch ms), undefined when the gap is too short for any report;
   * nextProbeMs is when the next probe goes (epoch ms), so a report expected
   * to outlast the gap can wait for a later one.
   */
  report(deadlineMs: number | undefined, nextProbeMs?: number): void;
}

/** Slots the clock worker runs: one per probe, then housekeeping's. */
export const clockSlots = (probeSlots: number): number => probeSlots + 1;

export class Scheduler {
  /** The tick's last probe has been sent and its report has not gone yet. */
  private reportWaiting = false;
  private deferrals = 0;
  /** When the next tick's first probe is due (epoch ms). */
  private nextProbeDueMs = Number.NEGATIVE_INFINITY;
  private leadMs = REPORT_LEAD_MS;
  private gapMs = Number.POSITIVE_INFINITY;

  constructor(private readonly o: SchedulerOptions) {}

  /** The clock's tick: either one probe or the housekeeping, never both. */
  onTick(tick: ClockTick): void {
    const last = this.o.probeSlots - 1;
    if (tick.slot <= last) {
      this.o.probe(tick);
      if (tick.slot === last) this.openGap(tick);
      return;
    }
    this.o.local();
    if (!this.reportWaiting) return;
    this.deferrals++;
    if (this.o.reportServerProbesInFlight() === 0 || this.deferrals > HOUSEKEEPING_DEFER_MAX) this.report();
  }

  /** A probe settled: a report waiting for it may go now, if the next probe is far enough away. */
  onProbeSettled(): void {
    if (!this.reportWaiting || this.o.reportServerProbesInFlight() > 0) return;
    if (this.o.clock.nowMs() <= this.nextProbeDueMs - this.leadMs) this.report();
  }

  /** The gap after the tick's last probe begins; the report may go once its server has no probe in flight. */
  private openGap(tick: ClockTick): void {
    const slots = clockSlots(this.o.probeSlots);
    const offsetMs = slotOffsetMs(tick.slot, slots, tick.intervalMs);
    this.nextProbeDueMs = tick.dueMs - offsetMs + tick.intervalMs;
    this.gapMs = tick.intervalMs - offsetMs;
    this.leadMs = Math.min(REPORT_LEAD_MS, this.gapMs / 2);
    // A report still waiting from an earlier gap keeps its deferral count.
    this.reportWaiting = true;
  }

  private report(): void {
    this.reportWaiting = false;
    this.deferrals = 0;
    if (this.gapMs < REPORT_GAP_MS_MIN) this.o.report(undefined);
    else this.o.report(this.nextProbeDueMs - this.leadMs, this.nextProbeDueMs);
  }
}
