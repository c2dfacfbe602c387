// One HTTP echo from this server to a peer: GET /echo, as a page's XHR probe
// asks it, timed from the request to the end of the body. The peer's
// Server-Timing `app` is its own time on the request.
import { performance } from "node:perf_hooks";
import { httpStatusReason, type SampleReason } from "../../shared/contract/reasons.js";

export interface PeerProbeResult {
  outcome: "ok" | "timeout" | "error";
  /** Latency (ms); the timeout for a timeout; null for an error. */
  ms: number | null;
  reason?: SampleReason;
  /** The peer's own time on the probe (ms). */
  serverMs?: number;
  /** The failure was the peer's TLS certificate, which this process does not trust (the pages' browsers may). */
  untrusted?: boolean;
}

const APP_TIMING = /(?:^|,)\s*app;dur=([\d.]+)/;
const CERT_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

let counter = 0;

export async function probeHttpEcho(baseUrl: string, timeoutMs: number): Promise<PeerProbeResult> {
  const startMs = performance.now();
  try {
    // A fresh query string each time: nothing between here and the peer may answer from a cache.
    const res = await fetch(`${baseUrl}/echo?peer=${++counter}`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    const ms = performance.now() - startMs;
    if (res.status !== 200) return { outcome: "error", ms: null, reason: httpStatusReason(res.status) };
    const app = APP_TIMING.exec(res.headers.get("server-timing") ?? "");
    return app === null ? { outcome: "ok", ms } : { outcome: "ok", ms, serverMs: Number(app[1]) };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === "TimeoutError") return { outcome: "timeout", ms: timeoutMs };
    const untrusted = CERT_ERROR.test(e.cause?.code ?? "");
    return { outcome: "error", ms: null, reason: "network", ...(untrusted ? { untrusted } : {}) };
  }
}
