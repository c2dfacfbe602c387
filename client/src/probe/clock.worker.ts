// The probe clock. It lives in a dedicated worker because a hidden tab's
// main-thread timers are throttled to one wake-up a minute in Chrome, while a
// worker's are not, and the page's message events are never throttled.
// Due times are t0 + k * interval on wall-clock boundaries: the schedule never drifts.
import type { ClockMessage, ClockTick } from "./clock-protocol.js";

/** Wall-clock jumps larger than this between two wake-ups count as missed time (ms). */
let intervalMs = 1000;
let slots = 1;
let t0 = 0;
/** Next (k, slot) to emit. */
let nextK = 0;
let nextSlot = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

const dueOf = (k: number, slot: number) => t0 + k * intervalMs + Math.floor((slot * intervalMs) / slots);

function post(tick: ClockTick): void {
  (self as unknown as Worker).postMessage(tick);
}

function run(): void {
  const now = Date.now();
  // Emit every slot that is due by now, in order, each exactly once.
  for (;;) {
    const due = dueOf(nextK, nextSlot);
    if (due > now) break;
    // Missed if the same slot of the following tick is already due as well.
    const missed = dueOf(nextK + 1, nextSlot) <= now;
    post({ type: "tick", k: nextK, slot: nextSlot, dueMs: due, missed });
    nextSlot++;
    if (nextSlot === slots) {
      nextSlot = 0;
      nextK++;
    }
  }
  timer = setTimeout(run, Math.max(0, dueOf(nextK, nextSlot) - Date.now()));
}

self.onmessage = (ev: MessageEvent<ClockMessage>) => {
  const msg = ev.data;
  if (msg.type !== "start") return;
  intervalMs = msg.intervalMs;
  slots = Math.max(1, msg.slots);
  // Start at the next whole interval so ticks of different tabs and servers line up.
  t0 = Math.ceil(Date.now() / intervalMs) * intervalMs;
  nextK = 0;
  nextSlot = 0;
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(run, Math.max(0, t0 - Date.now()));
};
