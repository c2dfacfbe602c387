// Turns parsed ping lines into exactly one result per echo request: ok,
// timeout (carrying the timeout) or error. Duplicates, late replies and ICMP
// errors about a request already settled never produce a second result.
import { icmpReason, type SampleReason } from "../../shared/contract/index.js";
import type { PingLine } from "./ping-parse.js";

export interface PingResult {
  /** When the request was sent (epoch ms, from ping's own -D clock). */
  t: number;
  ms: number | null;
  /** skipped: the address waited for a ping slot (the pool's bound), so nothing was sent. */
  outcome: "ok" | "timeout" | "error" | "skipped";
  reason?: SampleReason;
}

interface Entry {
  /** Send time if known: a request is only seen once it is answered or overdue. */
  sentAtMs: number;
  /** How the request was settled, or null while it waits. */
  settled: PingResult["outcome"] | null;
}

export interface PingSequenceCounts {
  duplicates: number;
  /** Replies or ICMP errors about a request already settled as a timeout. */
  late: number;
}

export class PingSequence {
  private readonly entries = new Map<number, Entry>();
  readonly counts: PingSequenceCounts = { duplicates: 0, late: 0 };

  /**
   * @param intervalMs time between requests (ms): with -O, "no answer yet for N"
   *   is printed as request N+1 leaves, so request N left this long before.
   * @param timeoutMs a request unanswered for this long (ms) is a timeout.
   */
  constructor(
    private readonly intervalMs: number,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Feeds one line; returns the results it settles: first the requests that
   * were already overdue at `nowMs`, so a late line cannot beat their timeout.
   */
  onLine(line: PingLine, nowMs: number): PingResult[] {
    const overdue = this.expire(nowMs);
    return overdue.length === 0 ? this.apply(line, nowMs) : [...overdue, ...this.apply(line, nowMs)];
  }

  private apply(line: PingLine, nowMs: number): PingResult[] {
    switch (line.kind) {
      case "reply": {
        if (line.dup) {
          this.counts.duplicates++;
          return [];
        }
        const at = line.atEpochMs ?? nowMs;
        const sentAtMs = Math.round(at - line.rttMs);
        const e = this.entries.get(line.seq);
        if (e?.settled) {
          // A second reply without ping's DUP! mark (broadcast), or one after the request timed out.
          if (e.settled === "ok") this.counts.duplicates++;
          else this.counts.late++;
          return [];
        }
        if (line.rttMs > this.timeoutMs) {
          this.entries.set(line.seq, { sentAtMs, settled: "timeout" });
          return [{ t: sentAtMs, ms: this.timeoutMs, outcome: "timeout", reason: "late-reply" }];
        }
        this.entries.set(line.seq, { sentAtMs, settled: "ok" });
        return [{ t: sentAtMs, ms: line.rttMs, outcome: "ok" }];
      }
      case "no-answer": {
        if (!this.entries.has(line.seq)) {
          const at = line.atEpochMs ?? nowMs;
          this.entries.set(line.seq, { sentAtMs: Math.round(at - this.intervalMs), settled: null });
        }
        return [];
      }
      case "icmp-error": {
        const e = this.entries.get(line.seq);
        if (e?.settled) {
          this.counts.late++;
          return [];
        }
        const sentAtMs = e?.sentAtMs ?? Math.round((line.atEpochMs ?? nowMs) - this.intervalMs);
        this.entries.set(line.seq, { sentAtMs, settled: "error" });
        return [{ t: sentAtMs, ms: null, outcome: "error", reason: icmpReason(line.message) }];
      }
      default:
        return [];
    }
  }

  /** Settles every overdue request as a timeout and forgets old ones. */
  expire(nowMs: number): PingResult[] {
    const out: PingResult[] = [];
    for (const [seq, e] of this.entries) {
      if (e.settled === null && nowMs - e.sentAtMs >= this.timeoutMs) {
        e.settled = "timeout";
        out.push({ t: e.sentAtMs, ms: this.timeoutMs, outcome: "timeout" });
      }
      // icmp_seq wraps at 65536 (18 h at 1 Hz): forget by age, not by number.
      if (e.settled !== null && nowMs - e.sentAtMs > 3 * this.timeoutMs + this.intervalMs) this.entries.delete(seq);
    }
    return out.sort((a, b) => a.t - b.t);
  }

  /** Requests still waiting for an answer. */
  get pending(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.settled === null) n++;
    return n;
  }
}
