// What the stress test's load may cost one address: bytes per hour (a token
// bucket of bytes, refilled continuously, so "per hour" is a rolling hour)
// and load streams open at once; and what all addresses together may keep
// open. A refusal says how long to wait, and the load paths answer it as 429
// with Retry-After (server/stress/load-paths.ts). The clock is passed in.
import { limiterKey } from "./rate-limiter.js";

export interface StressBudgetOptions {
  /** false with --no-rate-limit: no per-address budget (the server-wide stream cap stays). */
  perAddress: boolean;
  /** Bytes one address may move per hour, both directions together. */
  bytesPerHour: number;
  /** Load streams (downloads and uploads in progress) one address may hold at once. */
  streamsPerAddress: number;
  /** Load streams the whole server holds at once. */
  streamsMax: number;
  /** Addresses remembered at most; the least recently seen without open streams is forgotten first (it starts full again). */
  addressesMax: number;
  /** Monotonic clock (ms). */
  nowMs: () => number;
}

/** Why a load request was refused. */
export type StressRefusal = "bytes" | "streams" | "server-streams";

export type StressAdmission =
  | {
      ok: true;
      /** Ends the stream: its place is freed and the bytes it was granted but did not move are given back. */
      release(bytesMoved: number): void;
    }
  | { ok: false; why: StressRefusal; retryAfterMs: number };

interface Account {
  tokens: number;
  atMs: number;
  streams: number;
}

/** A stream refused for the stream caps is retried after this (ms): streams end within seconds. */
export const STREAMS_RETRY_MS = 1000;

export class StressBudget {
  /** Map order is recency order: an account is re-inserted whenever it is used. */
  private readonly accounts = new Map<string, Account>();
  private open = 0;

  constructor(private readonly o: StressBudgetOptions) {}

  /** Streams open now, server-wide. */
  get openStreams(): number {
    return this.open;
  }

  /** Opens a stream that may move up to `bytes`, or says why not and for how long. */
  take(address: string, bytes: number): StressAdmission {
    if (this.open >= this.o.streamsMax) return { ok: false, why: "server-streams", retryAfterMs: STREAMS_RETRY_MS };
    if (!this.o.perAddress) return this.grant(null, 0);
    const key = limiterKey(address);
    const a = this.account(key);
    if (a.streams >= this.o.streamsPerAddress) return { ok: false, why: "streams", retryAfterMs: STREAMS_RETRY_MS };
    if (a.tokens < bytes) {
      // A request larger than the whole budget can never pass: it waits for a full bucket, then is asked to shrink.
      const missing = Math.min(bytes, this.o.bytesPerHour) - a.tokens;
      return { ok: false, why: "bytes", retryAfterMs: Math.ceil(missing / this.ratePerMs()) };
    }
    a.tokens -= bytes;
    a.streams++;
    return this.grant(a, bytes);
  }

  /** Bytes `address` may still move now (for tests and logs). */
  tokensOf(address: string): number {
    const a = this.accounts.get(limiterKey(address));
    return a === undefined ? this.o.bytesPerHour : this.refilled(a);
  }

  private ratePerMs(): number {
    return this.o.bytesPerHour / 3_600_000;
  }

  private refilled(a: Account): number {
    return Math.min(this.o.bytesPerHour, a.tokens + (this.o.nowMs() - a.atMs) * this.ratePerMs());
  }

  private account(key: string): Account {
    const now = this.o.nowMs();
    let a = this.accounts.get(key);
    if (a !== undefined) {
      a.tokens = this.refilled(a);
      a.atMs = now;
      this.accounts.delete(key);
    } else {
      if (this.accounts.size >= this.o.addressesMax) this.forgetOne();
      a = { tokens: this.o.bytesPerHour, atMs: now, streams: 0 };
    }
    this.accounts.set(key, a);
    return a;
  }

  /** Forgets the least recently seen account that holds no stream (one that does must keep counting it). */
  private forgetOne(): void {
    for (const [key, a] of this.accounts)
      if (a.streams === 0) {
        this.accounts.delete(key);
        return;
      }
  }

  private grant(a: Account | null, granted: number): StressAdmission {
    this.open++;
    let released = false;
    return {
      ok: true,
      release: (bytesMoved) => {
        if (released) return;
        released = true;
        this.open--;
        if (a === null) return;
        a.streams--;
        const unused = Math.max(0, granted - bytesMoved);
        a.tokens = Math.min(this.o.bytesPerHour, a.tokens + unused);
      },
    };
  }
}
