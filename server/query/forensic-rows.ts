// Stored rows as the forensics statistics read them (shared/forensics).
import type { ForensicSample } from "../../shared/forensics/attribution.js";
import { FLAG, FLAG_KNOWN_SHIFT } from "../store/flags.js";
import type { RawSampleRow } from "../store/page-reader.js";

function flag(flags: number, bit: number): boolean | null {
  return (flags & (bit << FLAG_KNOWN_SHIFT)) === 0 ? null : (flags & bit) !== 0;
}

export function forensicSample(r: RawSampleRow): ForensicSample {
  return {
    method: r[4],
    target: r[5],
    t: r[0],
    ms: r[6],
    outcome: r[7],
    lateMs: r[9],
    visibleAtSend: flag(r[11], FLAG.visibleAtSend),
    visibleAtReply: flag(r[11], FLAG.visibleAtReply),
    hiddenMs: r[10],
    froze: flag(r[11], FLAG.froze),
    fresh: flag(r[11], FLAG.fresh),
    serverMs: r[18],
    serverLagMs: r[17],
  };
}

/** A latency that counts in a distribution: ok, or a timeout at its timeout value. */
export function hasLatency(r: RawSampleRow): boolean {
  return r[6] !== null && (r[7] === "ok" || r[7] === "timeout");
}

/** Nearest-rank median of unsorted values. */
export function median(values: number[]): number {
  const s = Float64Array.from(values).sort();
  return s[Math.max(0, Math.ceil(s.length / 2) - 1)]!;
}
