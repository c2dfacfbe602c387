// The probe page's lines about reporting: how many samples went home, how many
// wait, and why any were lost or refused. The counters change when IndexedDB
// or the server answers, which may be in a probe's moment, so the line is
// written in the housekeeping slot with the live view (probe/main.ts); only
// the storage warning, which changes once, is written at once.
import type { OutboxCounters } from "./outbox.js";

export function showOutboxLine(c: OutboxCounters, line: HTMLElement): void {
  const parts = [`${c.delivered} reported`, `${c.pending} waiting`];
  if (c.dropped > 0) parts.push(`${c.dropped} dropped (outbox full)`);
  if (c.rejected > 0) parts.push(`${c.rejected} refused by the server`);
  if (c.failures > 0 && c.lastError !== undefined) parts.push(`home server: ${c.lastError}`);
  const text = parts.join(", ");
  if (line.textContent !== text) line.textContent = text;
}

export function showStorageWarning(c: OutboxCounters, warning: HTMLElement): void {
  const hidden = c.storage !== "memory";
  if (warning.hidden !== hidden) warning.hidden = hidden;
  if (hidden) return;
  const text = `Samples are kept in memory only (${c.fallbackReason ?? "IndexedDB unavailable"}): those not yet reported are lost if this tab closes or reloads.`;
  if (warning.textContent !== text) warning.textContent = text;
}
