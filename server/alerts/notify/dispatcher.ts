// Delivers each announced transition to every receiver, asynchronously: one
// queue per receiver (bounded; the oldest message goes first when it is
// full), one request in flight per receiver, each under a timeout, retried
// with exponential backoff and jitter while the receiver is down. Nothing
// here is awaited by a request handler, so the echo paths never wait on it.
import type { Announced } from "../book.js";
import type { SentState } from "../../store/alert-state.js";
import { DeliveryError } from "./post.js";
import type { ReceiverSpec } from "./receiver-url.js";

export const QUEUE_MAX_DEFAULT = 1000;
export const BACKOFF_FIRST_MS_DEFAULT = 1000;
export const BACKOFF_MAX_MS_DEFAULT = 5 * 60_000;
/** ±this share of each backoff is random, so receivers coming back are not hit by every server at once. */
const JITTER = 0.2;

export interface Receiver {
  spec: ReceiverSpec;
  /** Sends one transition's message; rejects (DeliveryError) unless the receiver acknowledged it. */
  send(t: Announced): Promise<void>;
}

export interface DispatcherOptions {
  receivers: readonly Receiver[];
  /** Records that a receiver acknowledged a message (server/store/alert-state.ts), so a restart does not send it again. */
  markSent: (fingerprint: string, startsAtMs: number, receiverKey: string, what: SentState) => Promise<void>;
  log: (line: string) => void;
  queueMax?: number;
  backoffFirstMs?: number;
  backoffMaxMs?: number;
  random?: () => number;
}

interface Lane {
  receiver: Receiver;
  queue: Announced[];
  running: boolean;
  failures: number;
  dropped: number;
  timer: NodeJS.Timeout | null;
  wake: (() => void) | null;
}

export class Dispatcher {
  private readonly lanes: Lane[];
  private stopped = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly o: DispatcherOptions) {
    this.lanes = o.receivers.map((receiver) => ({
      receiver,
      queue: [],
      running: false,
      failures: 0,
      dropped: 0,
      timer: null,
      wake: null,
    }));
  }

  /** Queues the transition for every receiver, or for those keys only (a restart's owed messages). */
  enqueue(t: Announced, onlyKeys?: ReadonlySet<string>): void {
    if (this.stopped) return;
    const max = this.o.queueMax ?? QUEUE_MAX_DEFAULT;
    for (const lane of this.lanes) {
      if (onlyKeys !== undefined && !onlyKeys.has(lane.receiver.spec.key)) continue;
      const dup = lane.queue.some(
        (q) => q.fingerprint === t.fingerprint && q.type === t.type && q.alert.startsAtMs === t.alert.startsAtMs,
      );
      if (dup) continue;
      lane.queue.push(t);
      if (lane.queue.length > max) {
        // Never the head: it may be in flight.
        lane.queue.splice(1, 1);
        if (lane.dropped++ === 0)
          this.o.log(`alerts: ${lane.receiver.spec.display} queue full (${max}): dropping its oldest messages`);
      }
      this.run(lane);
    }
  }

  /** Messages not yet acknowledged, all receivers together. */
  queued(): number {
    return this.lanes.reduce((n, l) => n + l.queue.length, 0);
  }

  /** Resolves once every queue is empty (tests). */
  idle(): Promise<void> {
    if (this.queued() === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const lane of this.lanes) {
      if (lane.timer !== null) clearTimeout(lane.timer);
      lane.wake?.();
    }
  }

  private backoffMs(failures: number): number {
    const first = this.o.backoffFirstMs ?? BACKOFF_FIRST_MS_DEFAULT;
    const max = this.o.backoffMaxMs ?? BACKOFF_MAX_MS_DEFAULT;
    const base = Math.min(max, first * 2 ** Math.min(30, failures - 1));
    const r = this.o.random ?? Math.random;
    return Math.round(base * (1 - JITTER + 2 * JITTER * r()));
  }

  private run(lane: Lane): void {
    if (lane.running || this.stopped) return;
    lane.running = true;
    void this.drain(lane).finally(() => {
      lane.running = false;
      if (this.queued() === 0) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  private async drain(lane: Lane): Promise<void> {
    const spec = lane.receiver.spec;
    while (!this.stopped && lane.queue.length > 0) {
      const t = lane.queue[0]!;
      try {
        await lane.receiver.send(t);
      } catch (err) {
        lane.failures++;
        const e = err as Error;
        const code = e instanceof DeliveryError ? e.code : "DELIVERY_ERROR";
        const waitMs = this.backoffMs(lane.failures);
        if (lane.failures === 1)
          this.o.log(
            `alerts: ${spec.display} did not take ${t.alert.labels.alertname} (${code}: ${e.message}); retrying with backoff`,
          );
        await new Promise<void>((resolve) => {
          lane.wake = resolve;
          lane.timer = setTimeout(resolve, waitMs);
        });
        lane.timer = null;
        lane.wake = null;
        continue;
      }
      if (lane.failures > 0) this.o.log(`alerts: ${spec.display} delivered again after ${lane.failures} failed tries`);
      lane.failures = 0;
      lane.dropped = 0;
      lane.queue.shift();
      await this.o
        .markSent(t.fingerprint, t.alert.startsAtMs, spec.key, t.type)
        .catch((err: Error) => this.o.log(`alerts: could not record a delivery to ${spec.display}: ${err.message}`));
    }
  }
}
