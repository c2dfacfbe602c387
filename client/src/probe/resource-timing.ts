// What Resource Timing says about an HTTP probe: whether it opened a new TCP
// connection, and the server's own figures from Server-Timing. Needs the
// Timing-Allow-Origin header the echo paths send.

export interface ConnectionFacts {
  fresh?: boolean;
  serverLagMs?: number;
  serverMs?: number;
}

export function connectionFacts(url: string): ConnectionFacts {
  const entries = performance.getEntriesByName(url, "resource") as PerformanceResourceTiming[];
  const e = entries[entries.length - 1];
  if (e === undefined) return {};
  const facts: ConnectionFacts = {};
  // A reused keep-alive connection has connectStart === connectEnd (both equal fetchStart).
  if (e.connectEnd > 0 || e.connectStart > 0) facts.fresh = e.connectEnd > e.connectStart;
  const lag = e.serverTiming?.find((t) => t.name === "lag");
  if (lag !== undefined && Number.isFinite(lag.duration)) facts.serverLagMs = lag.duration;
  // `app`: the handler's receive-to-send time. Script resources (JSONP) expose Server-Timing too.
  const app = e.serverTiming?.find((t) => t.name === "app");
  if (app !== undefined && Number.isFinite(app.duration)) facts.serverMs = app.duration;
  return facts;
}

/**
 * The buffer holds 250 entries by default and a page probing for days must
 * not grow: callers read their entry when the probe completes, and the
 * scheduler clears the buffer once per tick.
 */
export function clearResourceTimings(): void {
  performance.clearResourceTimings();
}
