// The alert book: each transition announced once, however often a source
// asks and however many servers share the state; an end the store could not
// record is retried, not lost; a server forgets what another one resolved.
import { describe, expect, it } from "vitest";
import { AlertBook, type Announced } from "../../server/alerts/book.js";
import type { AlertStateStore } from "../../server/store/alert-state.js";
import { manualClock } from "../helpers/alert-series.js";
import { memoryAlertState } from "../helpers/memory-alert-state.js";

const labels = { alertname: "TargetDown", target: "B" };

function book(state: AlertStateStore, owner = "A", clock = manualClock(1_000_000)) {
  const announced: Announced[] = [];
  const logs: string[] = [];
  const b = new AlertBook({
    owner,
    store: state,
    nowMs: clock.nowMs,
    log: (l) => void logs.push(l),
    announce: (t) => void announced.push(t),
  });
  return { b, announced, logs, clock };
}

describe("the alert book", () => {
  it("announces a firing once however often asked, and its end once", async () => {
    const state = memoryAlertState();
    const { b, announced } = book(state);
    await b.fire({ labels, annotations: { summary: "x" } });
    await b.fire({ labels, annotations: { summary: "x" } });
    await b.fire({ labels, annotations: { summary: "y" } });
    expect(announced.map((a) => a.type)).toEqual(["firing"]);
    expect((await state.load())[0]!.annotations).toEqual({ summary: "y" });
    await b.resolve(labels);
    await b.resolve(labels);
    expect(announced.map((a) => a.type)).toEqual(["firing", "resolved"]);
    expect(b.active().map((a) => a.alert.endsAtMs !== null)).toEqual([true]);
  });

  it("two servers on one state: one announces the start, one the end", async () => {
    const state = memoryAlertState();
    const a = book(state, "A");
    const b = book(state, "B");
    await Promise.all([a.b.fire({ labels, annotations: {} }), b.b.fire({ labels, annotations: {} })]);
    expect([...a.announced, ...b.announced].map((x) => x.type)).toEqual(["firing"]);
    await Promise.all([a.b.resolve(labels), b.b.resolve(labels)]);
    expect([...a.announced, ...b.announced].map((x) => x.type)).toEqual(["firing", "resolved"]);
  });

  it("an end the store could not record is retried each cycle, and announced once it is", async () => {
    const state = memoryAlertState();
    let down = false;
    const flaky: AlertStateStore = {
      ...state,
      resolve: (...args) => (down ? Promise.reject(new Error("PG_UNREACHABLE")) : state.resolve(...args)),
    };
    const { b, announced, logs } = book(flaky);
    await b.fire({ labels, annotations: {} });
    down = true;
    await b.resolve(labels);
    expect(announced.map((a) => a.type)).toEqual(["firing"]);
    expect(logs.join("\n")).toMatch(/PG_UNREACHABLE/);
    await b.retryResolves();
    expect(announced).toHaveLength(1);
    down = false;
    await b.retryResolves();
    await b.retryResolves();
    expect(announced.map((a) => a.type)).toEqual(["firing", "resolved"]);
  });

  it("forgets what another server resolved, so the next assertion starts a new episode", async () => {
    const state = memoryAlertState();
    const a = book(state, "A");
    const b = book(state, "B");
    await a.b.fire({ labels, annotations: {} });
    await b.b.fire({ labels, annotations: {} }); // B holds A's episode
    await a.b.resolve(labels);
    await b.b.fire({ labels, annotations: {} }); // still held: nothing
    expect(b.announced).toEqual([]);
    await b.b.reconcile();
    b.clock.advance(5000);
    await b.b.fire({ labels, annotations: {} });
    expect(b.announced.map((x) => x.type)).toEqual(["firing"]);
    expect(b.announced[0]!.alert.startsAtMs).toBe(1_005_000);
  });
});
