// Samples taken since the last IndexedDB write, saved at pagehide. The outbox
// writes to IndexedDB once a tick (never in a probe's moment), so up to one
// tick of samples is only in memory when the page goes away, and a
// transaction started in pagehide may be aborted with the document.
// localStorage is written synchronously, so they survive a reload or a
// closed tab; the next page of this profile moves them into the outbox.
import type { OutboxRow } from "./outbox-store.js";

const KEY_PREFIX = "tailprobe-spill:";
/** A spill larger than this (characters) is cut to its newest rows: localStorage holds ~5 MB per origin. */
export const SPILL_CHARS_MAX = 500_000;

export interface Spill {
  save(sessionId: string, rows: OutboxRow[]): void;
  /** Every spilled row of any session, removed from storage. */
  takeAll(): OutboxRow[];
}

export const localStorageSpill: Spill = {
  save(sessionId, rows) {
    if (rows.length === 0) return;
    let kept = rows;
    let text = JSON.stringify(kept);
    while (text.length > SPILL_CHARS_MAX && kept.length > 1) {
      kept = kept.slice(Math.ceil(kept.length / 2));
      text = JSON.stringify(kept);
    }
    try {
      localStorage.setItem(`${KEY_PREFIX}${sessionId}`, text);
    } catch (err) {
      // Storage full or disabled: the beacon still carries the newest samples.
      console.warn(`tailprobe: could not keep unsaved samples: ${(err as Error).message}`);
    }
  },
  takeAll() {
    const out: OutboxRow[] = [];
    let keys: string[];
    try {
      keys = Object.keys(localStorage).filter((k) => k.startsWith(KEY_PREFIX));
    } catch {
      return out;
    }
    for (const k of keys) {
      const text = localStorage.getItem(k);
      localStorage.removeItem(k);
      try {
        const rows = JSON.parse(text ?? "[]") as unknown;
        // Shape-checked where it matters here; the server validates every sample on delivery.
        if (Array.isArray(rows)) out.push(...rows.filter(isRow));
      } catch {
        console.warn(`tailprobe: dropped an unreadable spill ${k}`);
      }
    }
    return out;
  },
};

function isRow(r: unknown): r is OutboxRow {
  if (typeof r !== "object" || r === null) return false;
  const o = r as Record<string, unknown>;
  const s = o.sample as Record<string, unknown> | undefined;
  return (
    typeof o.sessionId === "string" &&
    typeof o.clientId === "string" &&
    typeof s === "object" &&
    s !== null &&
    typeof s.seq === "number"
  );
}
