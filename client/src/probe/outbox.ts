// Samples wait here until the home server acknowledges them. Delivery is
// idempotent on (sessionId, seq), so a retried batch is never counted twice.
import { BATCH_SAMPLES_MAX, type IngestResult, type Sample } from "../../../shared/protocol.js";

/** Send at most this often while samples trickle in (ms). */
export const FLUSH_INTERVAL_MS = 2000;
/** Retry backoff after a failed delivery: doubles up to the cap (ms). */
export const RETRY_MS_FIRST = 1000;
export const RETRY_MS_MAX = 30_000;
/** Samples per POST; the server accepts up to BATCH_SAMPLES_MAX. */
export const BATCH_SAMPLES = Math.min(500, BATCH_SAMPLES_MAX);

export interface OutboxOptions {
  endpoint: string;
  clientId: string;
  sessionId: string;
  label?: string | undefined;
  onDelivered?(result: IngestResult, pending: number): void;
  onFailed?(reason: string, pending: number): void;
}

export class Outbox {
  private queue: Sample[] = [];
  private inFlight = false;
  private failures = 0;
  private nextAttemptMs = 0;
  private lastSendMs = 0;

  constructor(private readonly options: OutboxOptions) {}

  get pending(): number {
    return this.queue.length;
  }

  add(sample: Sample): void {
    this.queue.push(sample);
  }

  /** Called on every clock tick: sends a batch when one is due. */
  pump(): void {
    const now = performance.now();
    if (this.inFlight || this.queue.length === 0 || now < this.nextAttemptMs) return;
    if (this.queue.length < BATCH_SAMPLES && now - this.lastSendMs < FLUSH_INTERVAL_MS) return;
    void this.send(now);
  }

  private async send(now: number): Promise<void> {
    this.inFlight = true;
    this.lastSendMs = now;
    const batch = this.queue.slice(0, BATCH_SAMPLES);
    const body = JSON.stringify({
      clientId: this.options.clientId,
      sessionId: this.options.sessionId,
      ...(this.options.label !== undefined ? { label: this.options.label } : {}),
      samples: batch,
    });
    try {
      const res = await fetch(this.options.endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      if (res.status === 400) {
        // The server found the batch invalid: retrying cannot help, and keeping
        // it would block every sample behind it. Drop it and say so.
        this.queue.splice(0, batch.length);
        this.options.onFailed?.(`rejected: ${await res.text()}`, this.queue.length);
        return;
      }
      if (!res.ok) throw new Error(`http-${res.status}`);
      const result = (await res.json()) as IngestResult;
      // Only now are the samples safe: drop exactly the ones that were sent.
      this.queue.splice(0, batch.length);
      this.failures = 0;
      this.nextAttemptMs = 0;
      this.options.onDelivered?.(result, this.queue.length);
    } catch (err) {
      this.failures++;
      this.nextAttemptMs = performance.now() + Math.min(RETRY_MS_MAX, RETRY_MS_FIRST * 2 ** (this.failures - 1));
      this.options.onFailed?.((err as Error).message, this.queue.length);
    } finally {
      this.inFlight = false;
    }
  }
}
