// The writer thread's policy decisions (writer-scheduling.ts): SCHED_IDLE
// while writes are answered in time, SCHED_BATCH from the moment one has
// waited lagMs (even before it is answered: a starved writer answers
// nothing), back to SCHED_IDLE after holdMs of writes answered in time.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mayLeaveIdle, type ThreadPolicy } from "../../server/platform/thread-policy.js";
import { watchWriterLag } from "../../server/store/sqlite/writer-yield.js";

const LAG_MS = 100;
const HOLD_MS = 1000;

/** A writer client's pending writes (sent times, oldest first) and the policies the watch asked for. */
function harness() {
  const pending: number[] = [];
  const asked: ThreadPolicy[] = [];
  const watch = watchWriterLag({
    lagMs: LAG_MS,
    holdMs: HOLD_MS,
    now: () => Date.now(),
    oldestPendingSentAtMs: () => pending[0],
    setPolicy: (p) => asked.push(p),
  });
  return {
    asked,
    send(): number {
      const at = Date.now();
      pending.push(at);
      watch.sent();
      return at;
    },
    answer(at: number): void {
      pending.splice(pending.indexOf(at), 1);
      watch.settled(at);
    },
    watch,
  };
}

beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => void vi.useRealTimers());

describe("the writer's lag watch", () => {
  it("asks for nothing while every write is answered within the lag", () => {
    const h = harness();
    for (let i = 0; i < 50; i++) {
      const at = h.send();
      vi.advanceTimersByTime(LAG_MS - 1);
      h.answer(at);
      vi.advanceTimersByTime(200);
    }
    expect(h.asked).toEqual([]);
    h.watch.stop();
  });

  it("steps up to batch once a write has waited the lag, before it is answered", () => {
    const h = harness();
    const at = h.send();
    vi.advanceTimersByTime(LAG_MS - 1);
    expect(h.asked).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.asked).toEqual(["batch"]);
    vi.advanceTimersByTime(5 * LAG_MS);
    h.answer(at);
    expect(h.asked).toEqual(["batch"]);
    h.watch.stop();
  });

  it("goes back to idle only after writes have been answered in time for the hold", () => {
    const h = harness();
    const late = h.send();
    vi.advanceTimersByTime(LAG_MS);
    h.answer(late);
    expect(h.asked).toEqual(["batch"]);
    // In time, but within the hold: stays batch.
    for (let t = 0; t < HOLD_MS - 100; t += 100) {
      const at = h.send();
      vi.advanceTimersByTime(10);
      h.answer(at);
      vi.advanceTimersByTime(90);
    }
    expect(h.asked).toEqual(["batch"]);
    vi.advanceTimersByTime(100);
    const at = h.send();
    h.answer(at);
    expect(h.asked).toEqual(["batch", "idle"]);
    h.watch.stop();
  });

  it("does not step down while an older write still waits past the lag", () => {
    const h = harness();
    const slow = h.send();
    vi.advanceTimersByTime(LAG_MS);
    expect(h.asked).toEqual(["batch"]);
    vi.advanceTimersByTime(HOLD_MS * 2);
    const quick = h.send();
    h.answer(quick);
    expect(h.asked).toEqual(["batch"]);
    h.answer(slow);
    expect(h.asked).toEqual(["batch"]);
    vi.advanceTimersByTime(HOLD_MS);
    h.answer(h.send());
    expect(h.asked).toEqual(["batch", "idle"]);
    h.watch.stop();
  });

  it("times the writes still pending when it steps back down", () => {
    const h = harness();
    const late = h.send();
    vi.advanceTimersByTime(LAG_MS);
    h.answer(late);
    vi.advanceTimersByTime(HOLD_MS);
    h.send(); // pending across the step down, never answered
    h.answer(h.send());
    expect(h.asked).toEqual(["batch", "idle"]);
    vi.advanceTimersByTime(LAG_MS);
    expect(h.asked).toEqual(["batch", "idle", "batch"]);
    h.watch.stop();
  });

  it("times the oldest pending write, not the latest", () => {
    const h = harness();
    h.send();
    vi.advanceTimersByTime(60);
    h.send(); // a later write must not push the deadline back
    vi.advanceTimersByTime(LAG_MS - 60);
    expect(h.asked).toEqual(["batch"]);
    h.watch.stop();
  });

  it("stop() cancels the pending look", () => {
    const h = harness();
    h.send();
    h.watch.stop();
    vi.advanceTimersByTime(LAG_MS * 10);
    expect(h.asked).toEqual([]);
  });
});

describe("mayLeaveIdle", () => {
  const limits = (soft: string) =>
    `Limit                     Soft Limit           Hard Limit           Units\nMax nice priority         ${soft}                    ${soft}                    \n`;
  it("reads CAP_SYS_NICE (bit 23) from the effective capabilities", () => {
    expect(mayLeaveIdle("Name:\tnode\nCapEff:\t000001fffeffffff\n", limits("0"))).toBe(true); // root in a container
    expect(mayLeaveIdle("CapEff:\t0000000000800000\n", limits("0"))).toBe(true); // CAP_SYS_NICE alone
    expect(mayLeaveIdle("CapEff:\t0000000000000000\n", limits("0"))).toBe(false); // an ordinary user
    expect(mayLeaveIdle("CapEff:\t00000000007fffff\n", limits("0"))).toBe(false); // every capability below it
  });

  it("or an RLIMIT_NICE that lets a thread back to nice 0", () => {
    expect(mayLeaveIdle("CapEff:\t0000000000000000\n", limits("20"))).toBe(true);
    expect(mayLeaveIdle("CapEff:\t0000000000000000\n", limits("unlimited"))).toBe(true);
    expect(mayLeaveIdle("CapEff:\t0000000000000000\n", limits("19"))).toBe(false);
    expect(mayLeaveIdle("", "")).toBe(false);
  });
});
