// The probe page's line about reporting: how many samples went home, how many
// wait, and why any were lost or refused.
import type { OutboxCounters } from "./outbox.js";

export function showOutbox(c: OutboxCounters, line: HTMLElement, warning: HTMLElement): void {
  const parts = [`${c.delivered} reported`, `${c.pending} waiting`];
  if (c.dropped > 0) parts.push(`${c.dropped} dropped (outbox full)`);
  if (c.rejected > 0) parts.push(`${c.rejected} refused by the server`);
  if (c.failures > 0 && c.lastError !== undefined) parts.push(`home server: ${c.lastError}`);
  line.textContent = parts.join(", ");
  warning.hidden = c.storage !== "memory";
  if (c.storage === "memory") {
    warning.textContent = `Samples are kept in memory only (${c.fallbackReason ?? "IndexedDB unavailable"}): those not yet reported are lost if this tab closes or reloads.`;
  }
}
