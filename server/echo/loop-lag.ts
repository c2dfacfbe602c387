// The server's own event-loop delay, reported with every echo (Server-Timing)
// so that a stall on the server shows up as such and is not blamed on the path.
import { monitorEventLoopDelay } from "node:perf_hooks";

/** Sampling resolution of the delay histogram (ms). */
const RESOLUTION_MS = 10;
/** The reported figure is the worst delay over this window (ms). */
const WINDOW_MS = 1000;

export interface LoopLag {
  /** Worst event-loop delay over the last window, in ms, beyond the sampling resolution. */
  currentMs(): number;
  stop(): void;
}

export function startLoopLag(): LoopLag {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  let lastMs = 0;
  const timer = setInterval(() => {
    // h.max is in ns and includes the sampling interval itself.
    lastMs = Math.max(0, h.max / 1e6 - RESOLUTION_MS);
    h.reset();
  }, WINDOW_MS);
  timer.unref();
  return {
    currentMs: () => lastMs,
    stop: () => {
      clearInterval(timer);
      h.disable();
    },
  };
}
