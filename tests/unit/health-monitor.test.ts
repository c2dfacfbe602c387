// The health monitor on simulated deployments (a clock it does not own,
// reports and notes as pages send them): when an incident opens and closes,
// its kind, start and end, and where it says the fault lies.
import { describe, expect, it } from "vitest";
import { MemorySink, ok, refused, simulate, T0, timedOut, type Probe } from "../helpers/health-sim.js";
import { CLOSE_AFTER_MS, OPEN_AFTER_MS } from "../../server/health/rules.js";

const KILL_S = 60;
const BACK_S = 90;
const fine = (ms = 1.2): Probe => ok(ms);

describe("health monitor", () => {
  it("stays quiet while every source is fine", () => {
    const sim = simulate({
      clients: ["c1", "c2", "c3"],
      targets: ["A", "B"],
      probe: () => fine(),
      peer: (t) => (t === "B" ? fine(0.4) : null),
    });
    sim.run(0, 120);
    expect(sim.events).toEqual([]);
    expect(sim.monitor.states().map((s) => [s.target, s.state])).toEqual([
      ["A", "up"],
      ["B", "up"],
    ]);
  });

  it("B down from every client and from A's own probe: the server; opened within seconds, closed after it is back", () => {
    const down = (target: string, s: number) => target === "B" && s >= KILL_S && s < BACK_S;
    const sim = simulate({
      clients: ["c1", "c2", "c3"],
      targets: ["A", "B"],
      probe: (_c, target, _m, s) => (down(target, s) ? refused() : fine()),
      peer: (target, _m, s) => (target !== "B" ? null : down(target, s) ? refused() : fine(0.4)),
    });
    sim.run(0, KILL_S);
    expect(sim.events).toEqual([]);
    sim.run(KILL_S, KILL_S + 6);
    const opened = sim.events.filter((e) => e.type === "opened");
    expect(opened).toHaveLength(1);
    const i = opened[0]!.incident;
    expect(i).toMatchObject({ target: "B", kind: "down", verdict: "server", end: null, observer: "A" });
    // Start: the first failed probe (the simulated kill is at second 60, probes at +0, +120, +240 ms).
    expect(i.start).toBe(T0 + KILL_S * 1000);
    expect(i.summary).toBe("B down: failing from 3 of 3 clients and from A's own probe since 05:15:00 UTC");
    expect(i.clients).toEqual(["pub_c1", "pub_c2", "pub_c3"]);
    expect(i.methods).toEqual(["jsonp", "peerhttp", "peerws", "ws", "xhr"]);
    // Opened OPEN_AFTER_MS after every source saw it down, which took them a tick and a bit.
    const openedAtMs = sim.eventAtMs[sim.events.indexOf(opened[0]!)]!;
    expect(openedAtMs - i.start).toBeGreaterThanOrEqual(OPEN_AFTER_MS);
    expect(openedAtMs - i.start).toBeLessThanOrEqual(OPEN_AFTER_MS + 2000);
    expect(sim.monitor.states().find((s) => s.target === "B")).toEqual({
      target: "B",
      state: "down",
      sinceMs: i.start,
    });
    expect(sim.monitor.states().find((s) => s.target === "A")?.state).toBe("up");
    expect(sim.sink.rows.get(i.id)?.end).toBeNull();

    sim.run(KILL_S + 6, BACK_S + 10);
    const closed = sim.events.filter((e) => e.type === "closed");
    expect(closed).toHaveLength(1);
    expect(closed[0]!.incident.id).toBe(i.id);
    expect(closed[0]!.incident.end).toBe(T0 + BACK_S * 1000);
    expect(sim.sink.rows.get(i.id)?.end).toBe(T0 + BACK_S * 1000);
    // Nothing else opened: not A, not a degradation on the way down or back up.
    expect(sim.events.filter((e) => e.type === "opened")).toHaveLength(1);
  });

  it("one failing tick is not an incident (hysteresis)", () => {
    const sim = simulate({
      clients: ["c1", "c2"],
      targets: ["A", "B"],
      probe: (_c, target, _m, s) => (target === "B" && s === 50 ? refused() : fine()),
      peer: (t, _m, s) => (t === "B" ? (s === 50 ? refused() : fine(0.4)) : null),
    });
    sim.run(0, 80);
    expect(sim.events).toEqual([]);
  });

  it("one client of three slow to B: that client, not the server", () => {
    const sim = simulate({
      clients: ["c1", "c2", "c3"],
      targets: ["A", "B"],
      probe: (c, target, _m, s) => (c === "c2" && target === "B" && s >= 60 ? ok(320) : fine()),
      peer: (t) => (t === "B" ? fine(0.4) : null),
      ping: () => ok(0.2),
    });
    sim.run(0, 90);
    const opened = sim.events.filter((e) => e.type === "opened");
    expect(opened).toHaveLength(1);
    expect(opened[0]!.incident).toMatchObject({
      target: "B",
      kind: "degraded",
      verdict: "client",
      clients: ["pub_c2"],
    });
    expect(opened[0]!.incident.summary).toBe(
      "B degraded: for client pub_c2: slow (median 320 ms against a usual 1.2 ms) while 2 other clients and A's own probe are fine since 05:15:00 UTC",
    );
    expect(opened[0]!.incident.peak.latencyMs).toBe(320);
    // The slow probes were reported (no failure, so no notes): the start is the first slow one all the same.
    expect(opened[0]!.incident.start).toBe(T0 + 60_000);
  });

  it("one tab whose ticks fire late (its main thread busy) while its answers come on time: that client, and the sentence says why", () => {
    // What its user waits for is the lateness and the probe together: 381 ms against 1.2.
    const sim = simulate({
      clients: ["c1", "c2", "c3"],
      targets: ["A", "B"],
      probe: (c, _t, _m, s) => (c === "c1" && s >= 60 ? ok(1.2, { lateMs: 380 }) : fine()),
      peer: (t) => (t === "B" ? fine(0.4) : null),
    });
    sim.run(0, 90);
    const opened = sim.events.filter((e) => e.type === "opened").map((e) => e.incident);
    // Slow to every server it probes: one incident per server, each naming the client, none the server.
    expect(opened.map((i) => [i.target, i.kind, i.verdict, i.clients])).toEqual([
      ["A", "degraded", "client", ["pub_c1"]],
      ["B", "degraded", "client", ["pub_c1"]],
    ]);
    for (const i of opened) expect(i.summary).toContain("client: the tick fired 380 ms late");
  });

  it("one client failing to B with its pings failing too: the network", () => {
    const sim = simulate({
      clients: ["c1", "c2", "c3"],
      targets: ["A", "B"],
      probe: (c, target, _m, s) => (c === "c3" && target === "B" && s >= 60 ? timedOut() : fine()),
      peer: (t) => (t === "B" ? fine(0.4) : null),
      ping: (c, s) => (c === "c3" && s >= 55 ? timedOut() : ok(0.2)),
    });
    sim.run(0, 90);
    // The pings come with the page's reports, up to 5 s after its notes: the verdict may start as the client's.
    const last = sim.events.filter((e) => e.incident.target === "B").at(-1)!.incident;
    expect(last).toMatchObject({ target: "B", verdict: "network", clients: ["pub_c3"] });
    expect(last.evidence.some((x) => /ping to client pub_c3: \d+ of \d+ failed or slow/.test(x))).toBe(true);
  });

  it("only A's own probe of B fails while the clients reach it: the path between the servers", () => {
    const sim = simulate({
      clients: ["c1", "c2"],
      targets: ["A", "B"],
      probe: () => fine(),
      peer: (t, _m, s) => (t !== "B" ? null : s >= 60 ? refused() : fine(0.4)),
    });
    sim.run(0, 80);
    const opened = sim.events.filter((e) => e.type === "opened");
    expect(opened).toHaveLength(1);
    expect(opened[0]!.incident).toMatchObject({ target: "B", kind: "degraded", verdict: "network", clients: [] });
    expect(opened[0]!.incident.summary).toContain("A's own probe is failing while 2 of 2 clients reach it");
  });

  it("a hidden tab's timeouts and slow answers are its throttling, not an outage", () => {
    const sim = simulate({
      clients: ["c1"],
      targets: ["A", "B"],
      probe: (_c, _t, _m, s) =>
        s >= 60 ? (s % 2 === 0 ? timedOut({ hidden: true }) : ok(900, { hidden: true })) : fine(),
    });
    sim.run(0, 120);
    expect(sim.events).toEqual([]);
  });

  it("a sample that came in a note and again in the report counts once", () => {
    // c1 fails B for 3 s only: with double counting, its failures would pass the down run.
    const sim = simulate({
      clients: ["c1", "c2"],
      targets: ["A", "B"],
      probe: (c, target, _m, s) => (c === "c1" && target === "B" && s === 60 ? refused() : fine()),
    });
    sim.run(0, 90);
    expect(sim.events).toEqual([]);
  });

  it("an incident open in the store when the server restarts is followed, and closed when the target is back", () => {
    const sink = new MemorySink();
    const first = simulate(
      {
        clients: ["c1", "c2"],
        targets: ["A", "B"],
        probe: (_c, target, _m, s) => (target === "B" && s >= 60 ? refused() : fine()),
        peer: (t, _m, s) => (t !== "B" ? null : s >= 60 ? refused() : fine(0.4)),
      },
      sink,
    );
    first.run(0, 70);
    const [opened] = first.events;
    expect(opened?.type).toBe("opened");
    first.monitor.stop();
    const second = simulate(
      {
        clients: ["c1", "c2"],
        targets: ["A", "B"],
        probe: (_c, target, _m, s) => (target === "B" && s < 80 ? refused() : fine()),
        peer: (t, _m, s) => (t !== "B" ? null : s < 80 ? refused() : fine(0.4)),
      },
      sink,
    );
    return second.monitor.ready.then(() => {
      second.run(70, 100);
      expect(second.events.map((e) => e.type)).toEqual(["closed"]);
      expect(second.events[0]!.incident.id).toBe(opened!.incident.id);
      expect(sink.rows.get(opened!.incident.id)?.end).toBe(T0 + 80_000);
      expect(CLOSE_AFTER_MS).toBeGreaterThan(0);
    });
  });
});
