// Turns clock ticks into samples: every due (tick, slot) yields exactly one
// sample, ok, timeout, error or skipped, never silence.
import type { Clock } from "../common/clock.js";
import type { SampleReason } from "../../../shared/contract/reasons.js";
import type { Sample } from "../../../shared/contract/samples.js";
import type { BaselineSample } from "../../../shared/contract/ws.js";
import { raceBest2 } from "./best2-probe.js";
import type { ClockTick } from "./clock-protocol.js";
import { probeJsonp } from "./jsonp-probe.js";
import type { PageContext } from "./page-context.js";
import type { Slot } from "./plan.js";
import { resultMs, type ProbeResult } from "./probe-result.js";
import type { WsChannel } from "./ws-channel.js";
import { probeXhr } from "./xhr-probe.js";

/**
 * Most probes of one slot that may be outstanding at once. A dead server then
 * costs a bounded number of sockets and timers. A silent (blackholed) server
 * holds each probe for the whole timeout, so at the default 1 Hz and 5 s
 * timeout five are outstanding in steady state; one more absorbs clock jitter,
 * so an outage yields timeouts at the normal rate, not "outstanding-cap" skips.
 */
export const OUTSTANDING_PER_SLOT_MAX = 6;

export interface ProberOptions {
  slots: Slot[];
  timeoutMs: number;
  channels: Map<string, WsChannel>;
  context: PageContext;
  clock: Clock;
  emit(sample: Sample): void;
  /** Whether a report request to this server is in flight now (sets the sample's reportInFlight). */
  reportInFlight?(server: string): boolean;
  /** A probe settled (answered, failed or timed out). */
  onSettled?(): void;
}

export class Prober {
  private seq = 0;
  private readonly outstanding: number[];
  /** How to settle each probe still in flight, should the page go away first. */
  private readonly inFlight = new Set<() => void>();
  /** Probes in flight per server name (best-of-two counts for both of its servers). */
  private readonly inFlightPerServer = new Map<string, number>();

  constructor(private readonly o: ProberOptions) {
    this.outstanding = o.slots.map(() => 0);
  }

  /** Next sequence number of this session; baselines share the counter. */
  nextSeq(): number {
    return this.seq++;
  }

  /** Probes to this server in flight now. */
  inFlightTo(server: string): number {
    return this.inFlightPerServer.get(server) ?? 0;
  }

  /** Sends (or records as skipped) the probe of one slot: nothing else happens in this task. */
  onTick(tick: ClockTick): void {
    const slot = this.o.slots[tick.slot];
    if (slot === undefined) return;
    const base = { method: slot.method, target: slot.target, scheduledT: tick.dueMs };
    const now = this.o.clock.nowMs();
    // The worker ran but this page did not (main thread frozen or blocked) when
    // a tick reaches it after the slot's next due time: sending it now would
    // measure nothing the user saw, so it is a gap like any other.
    const missed = tick.missed ?? (now - tick.dueMs >= tick.intervalMs ? "frozen" : null);
    if (missed !== null) {
      this.o.context.noteMissed(tick.dueMs, tick.intervalMs);
      this.skip(base, tick.dueMs, missed);
      return;
    }
    if (this.outstanding[tick.slot]! >= OUTSTANDING_PER_SLOT_MAX) {
      this.skip(base, now, "outstanding-cap");
      return;
    }
    const [first] = slot.servers;
    const blocked = slot.servers.find((s) => s.blockedReason !== null);
    if ((blocked !== undefined && slot.method !== "best2") || first === undefined || !this.o.channels.has(first.name)) {
      // No channel is opened to a server the page may not reach; its ticks
      // still yield a record each, never a silent hole.
      this.o.emit({ ...base, seq: this.nextSeq(), t: now, ms: null, outcome: "error", reason: "mixed-content" });
      return;
    }
    this.run(tick, slot);
  }

  private skip(base: Pick<Sample, "method" | "target" | "scheduledT">, t: number, reason: SampleReason): void {
    this.o.emit({ ...base, seq: this.nextSeq(), t, ms: null, outcome: "skipped", reason });
  }

  private run(tick: ClockTick, slot: Slot): void {
    const ctx = this.o.context;
    const sentAtMs = this.o.clock.nowMs();
    const common = {
      method: slot.method,
      target: slot.target,
      t: sentAtMs,
      scheduledT: tick.dueMs,
      lateMs: Math.max(0, sentAtMs - tick.dueMs),
      visibleAtSend: ctx.visible,
      hiddenMs: ctx.hiddenMs(sentAtMs),
      reportInFlight: slot.servers.some((s) => this.o.reportInFlight?.(s.name) === true),
    };
    const freezesAtSend = ctx.freezeCount;
    const serverNames = [...new Set(slot.servers.map((s) => s.name))];
    const timeoutMs = this.o.timeoutMs;
    let released = false;
    // Frees this probe's place under the cap; best-of-two does so as soon as the race is decided.
    const release = () => {
      if (released) return;
      released = true;
      this.outstanding[tick.slot]!--;
    };
    let settled = false;
    const settle = (fields: Partial<Sample> & Pick<Sample, "ms" | "outcome">) => {
      // A probe abandoned at pagehide may still answer if the page comes back from the back/forward cache.
      if (settled) return;
      settled = true;
      this.inFlight.delete(abandon);
      for (const name of serverNames) this.inFlightPerServer.set(name, this.inFlightTo(name) - 1);
      release();
      const sample: Sample = {
        ...common,
        ...fields,
        seq: this.nextSeq(),
        visibleAtReply: ctx.visible,
        froze: ctx.freezeCount !== freezesAtSend,
      };
      this.o.emit(sample);
      this.o.onSettled?.();
    };
    const settleProbe = (r: ProbeResult) => {
      const fields: Partial<Sample> & Pick<Sample, "ms" | "outcome"> = {
        ms: resultMs(r, timeoutMs),
        outcome: r.outcome,
      };
      if (r.reason !== undefined) fields.reason = r.reason;
      if (r.fresh !== undefined) fields.fresh = r.fresh;
      if (r.serverLagMs !== undefined) fields.serverLagMs = r.serverLagMs;
      if (r.serverMs !== undefined) fields.serverMs = r.serverMs;
      settle(fields);
    };
    const abandon = () => settle({ ms: null, outcome: "error", reason: "page-closed" });

    const [first, second] = slot.servers;
    const ch = first === undefined ? undefined : this.o.channels.get(first.name);
    if (first === undefined || ch === undefined) return; // ruled out in onTick
    this.outstanding[tick.slot]!++;
    this.inFlight.add(abandon);
    for (const name of serverNames) this.inFlightPerServer.set(name, this.inFlightTo(name) + 1);
    switch (slot.method) {
      case "xhr":
        void probeXhr(first.baseUrl, timeoutMs).then(settleProbe);
        break;
      case "jsonp":
        void probeJsonp(first.baseUrl, timeoutMs).then(settleProbe);
        break;
      case "ws":
        void ch.echo(timeoutMs).then(settleProbe);
        break;
      case "best2": {
        const jsonpServer = second ?? first;
        const race = raceBest2(ch, jsonpServer.blockedReason === null ? jsonpServer.baseUrl : null, timeoutMs);
        void race.decided.then(release);
        void race.done.then((r) => {
          const fields: Partial<Sample> & Pick<Sample, "ms" | "outcome"> = {
            ms: r.ms,
            outcome: r.outcome,
            otherMs: r.otherMs,
            otherOutcome: r.otherOutcome,
          };
          if (r.winner !== undefined) fields.winner = r.winner;
          if (r.reason !== undefined) fields.reason = r.reason;
          if (r.fresh !== undefined) fields.fresh = r.fresh;
          settle(fields);
        });
        break;
      }
    }
  }

  /**
   * The page is going away: probes in flight will never answer, so their
   * ticks are recorded now as errors (and ride the pagehide beacon) rather
   * than left without a record.
   */
  abandonInFlight(): void {
    for (const abandon of [...this.inFlight]) abandon();
  }

  /** A baseline a server measured towards this page, carried home with our samples. */
  baselineSample(b: BaselineSample): Sample {
    const s: Sample = { seq: this.nextSeq(), t: b.t, method: b.method, target: b.target, ms: b.ms, outcome: b.outcome };
    if (b.minrtt !== undefined) s.minrtt = b.minrtt;
    if (b.reason !== undefined) s.reason = b.reason;
    return s;
  }
}
