// The running totals the tab generator (capacity-tabs.ts) prints, a JSON line
// a second, and capacity.ts reads.

export interface Totals {
  tabs: number;
  probes: number;
  probeErrors: number;
  timeouts: number;
  acked: number;
  duplicates: number;
  /** Samples sent again after a 429 or 503. */
  retried: number;
  refused: number;
  reportErrors: number;
  wsDrops: number;
  /** Samples a stopping tab could not deliver within its last reports. */
  unsentAtStop: number;
  /** Failures by kind, for a failed run's message. */
  errorKinds: Record<string, number>;
  /** Set on the last line, once every tab has stopped. */
  done?: boolean;
}

export function zeroTotals(): Totals {
  return {
    tabs: 0,
    probes: 0,
    probeErrors: 0,
    timeouts: 0,
    acked: 0,
    duplicates: 0,
    retried: 0,
    refused: 0,
    reportErrors: 0,
    wsDrops: 0,
    unsentAtStop: 0,
    errorKinds: {},
  };
}
