// The probe clock. It lives in a dedicated worker because a hidden tab's
// main-thread timers are throttled to one wake-up a minute in Chrome, while a
// worker's are not, and the page's message events are never throttled.
// Due times are t0 + k * interval on wall-clock boundaries: the schedule never
// drifts (see clock-schedule.ts).
import type { ClockMessage, ClockTick } from "./clock-protocol.js";
import { ClockSchedule } from "./clock-schedule.js";

let schedule: ClockSchedule | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

function post(tick: ClockTick): void {
  (self as unknown as Worker).postMessage(tick);
}

function run(): void {
  if (schedule === undefined) return;
  for (const tick of schedule.wake(Date.now(), performance.now())) post(tick);
  timer = setTimeout(run, Math.max(0, schedule.nextDueMs - Date.now()));
}

self.onmessage = (ev: MessageEvent<ClockMessage>) => {
  const msg = ev.data;
  if (msg.type !== "start") return;
  schedule = new ClockSchedule(msg.intervalMs, Math.max(1, msg.slots), Date.now(), performance.now());
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(run, Math.max(0, schedule.nextDueMs - Date.now()));
};
