// The JSONP probe: a <script> tag whose response calls a global function.
// Not bound by the same-origin policy, which is what lets best-of-two race
// a JSONP request to another server.
import type { SampleReason } from "../../../shared/contract/reasons.js";
import type { ProbeResult } from "./probe-result.js";
import { connectionFacts } from "./resource-timing.js";

let counter = 0;
type Callbacks = Record<string, ((payload: unknown) => void) | undefined>;

export function probeJsonp(baseUrl: string, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const name = `__tailprobe_jsonp_${++counter}`;
    const url = new URL(`${baseUrl}/jsonp?callback=${name}`, location.href).href;
    const script = document.createElement("script");
    const callbacks = window as unknown as Callbacks;
    let startMs = 0;
    let done = false;
    const finish = (outcome: ProbeResult["outcome"], reason?: SampleReason) => {
      if (done) return;
      done = true;
      const endMs = performance.now();
      clearTimeout(timer);
      // Deleting the global keeps the page's global names flat; a late answer
      // finds no function and its typeof guard makes it a no-op.
      delete callbacks[name];
      script.onload = script.onerror = null;
      script.remove();
      const r: ProbeResult = { outcome, startMs, endMs, ...connectionFacts(url) };
      if (reason !== undefined) r.reason = reason;
      resolve(r);
    };
    callbacks[name] = () => finish("ok");
    script.onload = () => finish("error", "no-callback");
    script.onerror = () => finish("error", "network");
    script.async = true;
    script.src = url;
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    startMs = performance.now();
    document.head.appendChild(script);
  });
}
