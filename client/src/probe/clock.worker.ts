// The probe clock. It lives in a dedicated worker because a hidden tab's
// main-thread timers are throttled to one wake-up a minute in Chrome, while a
// worker's are not, and the page's message events are never throttled.
// Due times are t0 + k * interval on wall-clock boundaries: the schedule never drifts.
import type { ClockMessage, ClockTick, MissReason } from "./clock-protocol.js";

/**
 * A gap counts as sleep when the wall clock ran this much further than the
 * monotonic clock (ms); smaller differences are clock adjustments (NTP slews).
 */
export const SLEEP_SKEW_MS = 1000;

let intervalMs = 1000;
let slots = 1;
let t0 = 0;
/** Next (k, slot) to emit. */
let nextK = 0;
let nextSlot = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
/** Both clocks at the previous wake-up, to tell a sleeping machine from a frozen page. */
let lastWall = 0;
let lastMono = 0;

const dueOf = (k: number, slot: number) => t0 + k * intervalMs + Math.floor((slot * intervalMs) / slots);

function post(tick: ClockTick): void {
  (self as unknown as Worker).postMessage(tick);
}

function run(): void {
  const now = Date.now();
  const mono = performance.now();
  const skew = now - lastWall - (mono - lastMono);
  const reason: MissReason = skew > SLEEP_SKEW_MS ? "asleep" : "frozen";
  lastWall = now;
  lastMono = mono;
  // Emit every slot that is due by now, in order, each exactly once.
  for (;;) {
    const due = dueOf(nextK, nextSlot);
    if (due > now) break;
    // Missed if the same slot of the following tick is already due as well.
    const missed = dueOf(nextK + 1, nextSlot) <= now ? reason : null;
    post({ type: "tick", k: nextK, slot: nextSlot, dueMs: due, intervalMs, missed });
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
  lastWall = Date.now();
  lastMono = performance.now();
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(run, Math.max(0, t0 - Date.now()));
};
