// The XMLHttpRequest probe: GET /echo with no custom headers, so no CORS preflight.
import { httpStatusReason, type SampleReason } from "../../../shared/contract/reasons.js";
import type { ProbeResult } from "./probe-result.js";
import { connectionFacts } from "./resource-timing.js";

let counter = 0;

export function probeXhr(baseUrl: string, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const url = new URL(`${baseUrl}/echo?x=${++counter}`, location.href).href;
    const xhr = new XMLHttpRequest();
    let startMs = 0;
    const finish = (outcome: ProbeResult["outcome"], reason?: SampleReason) => {
      const endMs = performance.now();
      xhr.onload = xhr.onerror = xhr.ontimeout = null;
      const r: ProbeResult = { outcome, startMs, endMs, ...connectionFacts(url) };
      if (reason !== undefined) r.reason = reason;
      resolve(r);
    };
    xhr.open("GET", url, true);
    // The network stack enforces this timeout, so throttled page timers cannot stretch it.
    xhr.timeout = timeoutMs;
    xhr.onload = () => (xhr.status === 200 ? finish("ok") : finish("error", httpStatusReason(xhr.status)));
    xhr.onerror = () => finish("error", "network");
    xhr.ontimeout = () => finish("timeout");
    startMs = performance.now();
    xhr.send();
  });
}
