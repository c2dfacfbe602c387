// Per-address token buckets with bounded memory. A bucket holds up to
// `burst` tokens and refills at `perSecond`; a request takes one. The clock
// is passed in, so tests step time instead of sleeping.
import net from "node:net";

export interface RateLimiterOptions {
  /** Refill rate (tokens per second). */
  perSecond: number;
  /** Bucket size (tokens): how many requests may come at once. */
  burst: number;
  /** Addresses remembered at most; beyond it the least recently seen is forgotten (it starts full again). */
  addressesMax: number;
  /** Monotonic clock (ms). */
  nowMs: () => number;
}

/** The verdict on one request: allowed, or refused with how long to wait (ms). */
export type RateVerdict = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * The key an address is budgeted under. An IPv6 client usually holds a whole
 * /64 and can pick any address in it, so IPv6 addresses share their /64's budget.
 */
export function limiterKey(address: string): string {
  if (net.isIPv6(address)) {
    const full = expandIpv6(address);
    if (full !== undefined) return `${full.slice(0, 4).join(":")}::/64`;
  }
  return address;
}

function expandIpv6(address: string): string[] | undefined {
  const [head, tail, ...rest] = address.split("::");
  if (rest.length > 0) return undefined;
  const left = head === "" || head === undefined ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(Math.max(0, zeros)).fill("0"), ...right];
  return groups.length >= 4 ? groups.map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")) : undefined;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export class RateLimiter {
  /** Map order is recency order: a bucket is re-inserted whenever it is used. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly o: RateLimiterOptions) {}

  /** Takes one token for the address, or says how long until one is there. */
  take(address: string): RateVerdict {
    const key = limiterKey(address);
    const now = this.o.nowMs();
    const b = this.buckets.get(key);
    let tokens = this.o.burst;
    if (b !== undefined) {
      tokens = Math.min(this.o.burst, b.tokens + ((now - b.atMs) * this.o.perSecond) / 1000);
      this.buckets.delete(key);
    } else if (this.buckets.size >= this.o.addressesMax) {
      this.buckets.delete(this.buckets.keys().next().value!);
    }
    if (tokens < 1) {
      this.buckets.set(key, { tokens, atMs: now });
      return { ok: false, retryAfterMs: Math.ceil(((1 - tokens) * 1000) / this.o.perSecond) };
    }
    this.buckets.set(key, { tokens: tokens - 1, atMs: now });
    return { ok: true };
  }

  /** Addresses currently remembered (bounded by addressesMax). */
  get size(): number {
    return this.buckets.size;
  }
}

/** Retry-After is whole seconds (RFC 9110); never 0, or a client would retry at once. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
