// The load paths' rate per address and direction: a virtual clock per
// (address, direction) that each chunk advances by its transmission time at
// the rate, so all of an address's streams together move at most the rate
// (a short burst allowed). The caller waits the delay before it writes (a
// download) or before it reads on (an upload: TCP then slows the sender).
import { limiterKey } from "./rate-limiter.js";

export interface PacingOptions {
  /** Mbit/s one address may move per direction; 0: unpaced. */
  mbpsPerAddress: number;
  /** Addresses remembered at most (the least recently seen forgotten first). */
  addressesMax: number;
  /** Monotonic clock (ms). */
  nowMs: () => number;
}

/** How far ahead of its rate a direction may run (ms): a chunk or two, so the first bytes never wait. */
export const PACING_BURST_MS = 20;

export class StressPacing {
  private readonly due = new Map<string, number>();
  private readonly bytesPerMs: number;

  constructor(private readonly o: PacingOptions) {
    this.bytesPerMs = (o.mbpsPerAddress * 1e6) / 8 / 1000;
  }

  /** How long (ms) to wait before moving `bytes` for `address` in direction `dir`. */
  delayMs(address: string, dir: "down" | "up", bytes: number): number {
    if (this.o.mbpsPerAddress <= 0) return 0;
    const key = `${dir} ${limiterKey(address)}`;
    const now = this.o.nowMs();
    const free = Math.max(this.due.get(key) ?? now - PACING_BURST_MS, now - PACING_BURST_MS);
    this.due.delete(key);
    if (this.due.size >= this.o.addressesMax) this.due.delete(this.due.keys().next().value!);
    this.due.set(key, free + bytes / this.bytesPerMs);
    return Math.max(0, free - now);
  }
}
