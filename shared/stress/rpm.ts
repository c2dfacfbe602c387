// Responsiveness in round trips per minute (RPM), after the IETF IPPM draft
// "Responsiveness under Working Conditions" (draft-ietf-ippm-responsiveness,
// §5.3.1 in -09): foreign probes (on connections that carry no load) and self
// probes (on the load-generating connections themselves) are each summarised
// by a trimmed mean that drops the slowest 5 %, each turned into RPM
// (60,000 / ms), and the two averaged:
//   RPM = (60000 / TM(foreign) + 60000 / TM(self)) / 2
// The draft's foreign probe is three figures on a new connection (TCP
// handshake, TLS handshake, HTTP GET), averaged. tailprobe's foreign probe is
// the page's WebSocket echo: its own connection to the same server across the
// same path, carrying no load, and timed every second through the whole run.
// Its self probe is a small GET the page sends on a load-generating
// connection (the load streams' origin, reusing the socket a load request has
// just finished on) between two load requests: HTTP/1.1 cannot interleave a
// request with a transfer in flight the way the draft's HTTP/2 probes do.

/** Share of the values kept, slowest dropped (the draft's 95th-percentile trimmed mean). */
export const TRIM_KEEP = 0.95;

/** Mean of the fastest ceil(95 %) of `values` (at least one); null for none. */
export function trimmedMean(values: readonly number[], keep = TRIM_KEEP): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const n = Math.max(1, Math.ceil(sorted.length * keep - 1e-9));
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  return sum / n;
}

/** RPM from the foreign and self probes' latencies (ms); null when either side has none or a zero mean. */
export function responsiveness(foreignMs: readonly number[], selfMs: readonly number[]): number | null {
  const f = trimmedMean(foreignMs);
  const s = trimmedMean(selfMs);
  if (f === null || s === null || f <= 0 || s <= 0) return null;
  return (60_000 / f + 60_000 / s) / 2;
}
