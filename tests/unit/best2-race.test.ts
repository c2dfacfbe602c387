// Best of two's bookkeeping with both legs scripted: who won, when the race
// counts as decided (that frees the probe slot), and what the loser reports.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ProbeResult } from "../../client/src/probe/probe-result.js";
import type { WsChannel } from "../../client/src/probe/ws-channel.js";
import { readSample } from "../../shared/contract/sample-reader.js";

interface Leg {
  promise: Promise<ProbeResult>;
  settle(outcome: ProbeResult["outcome"], atMs: number, reason?: ProbeResult["reason"]): void;
}
function leg(): Leg {
  let resolve!: (r: ProbeResult) => void;
  const promise = new Promise<ProbeResult>((r) => (resolve = r));
  return {
    promise,
    settle: (outcome, atMs, reason) => resolve({ outcome, startMs: 0, endMs: atMs, ...(reason ? { reason } : {}) }),
  };
}

let wsLeg: Leg;
let jsonpLeg: Leg;
const sent: string[] = [];
vi.mock("../../client/src/probe/jsonp-probe.js", () => ({
  probeJsonp: () => {
    sent.push("jsonp");
    return jsonpLeg.promise;
  },
}));
const { raceBest2 } = await import("../../client/src/probe/best2-probe.js");
const channel = {
  echo: () => {
    sent.push("ws");
    return wsLeg.promise;
  },
} as unknown as WsChannel;

const flush = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  wsLeg = leg();
  jsonpLeg = leg();
  sent.length = 0;
  vi.spyOn(performance, "now").mockReturnValue(0);
});

describe("raceBest2", () => {
  it("sends both legs before returning (same task)", () => {
    raceBest2(channel, "http://b.test", 5000);
    expect(sent).toEqual(["ws", "jsonp"]);
  });

  it("is decided by the first reply, and reports the loser when it arrives", async () => {
    const race = raceBest2(channel, "http://b.test", 5000);
    let decided = false;
    void race.decided.then(() => (decided = true));
    wsLeg.settle("ok", 3);
    await flush();
    expect(decided).toBe(true);
    jsonpLeg.settle("ok", 11);
    expect(await race.done).toMatchObject({ outcome: "ok", ms: 3, winner: "ws", otherMs: 11, otherOutcome: "ok" });
  });

  it("lets the JSONP leg win when it answers first", async () => {
    const race = raceBest2(channel, "http://b.test", 5000);
    jsonpLeg.settle("ok", 4);
    wsLeg.settle("ok", 9);
    expect(await race.done).toMatchObject({ outcome: "ok", ms: 4, winner: "jsonp", otherMs: 9 });
  });

  it("names the reply that came first by its timestamp, though its leg settled later", async () => {
    // A WebSocket echo answered at 7.28 ms settles only once its server's `served` note arrives,
    // after a JSONP callback that ran at 7.475 ms: the race was still won by the WebSocket.
    const race = raceBest2(channel, "http://b.test", 5000);
    jsonpLeg.settle("ok", 7.475);
    await flush();
    wsLeg.settle("ok", 7.28);
    expect(await race.done).toMatchObject({ outcome: "ok", ms: 7.28, winner: "ws", otherMs: 7.475 });
  });

  it("when one leg fails, the other decides; the failure is kept as the other leg's outcome", async () => {
    const race = raceBest2(channel, "http://b.test", 5000);
    jsonpLeg.settle("error", 1, "network"); // B is down: refused at once
    let decided = false;
    void race.decided.then(() => (decided = true));
    await flush();
    expect(decided).toBe(false); // a failed leg decides nothing
    wsLeg.settle("ok", 2);
    expect(await race.done).toMatchObject({ outcome: "ok", ms: 2, winner: "ws", otherMs: null, otherOutcome: "error" });
  });

  it("is decided before a timed-out loser has given up", async () => {
    const race = raceBest2(channel, "http://b.test", 5000);
    let decided = false;
    void race.decided.then(() => (decided = true));
    wsLeg.settle("ok", 2);
    await flush();
    expect(decided).toBe(true);
    jsonpLeg.settle("timeout", 5000);
    expect(await race.done).toMatchObject({ outcome: "ok", winner: "ws", otherMs: null, otherOutcome: "timeout" });
  });

  it("fails only when both legs fail", async () => {
    const race = raceBest2(channel, "http://b.test", 5000);
    wsLeg.settle("error", 0, "ws-closed");
    jsonpLeg.settle("timeout", 5000);
    const r = await race.done;
    expect(r).toMatchObject({ outcome: "timeout", ms: 5000, otherMs: null });
    expect(r.winner).toBeUndefined();
    // One reason from the vocabulary: the WebSocket leg's; the JSONP leg's outcome is otherOutcome.
    expect(r.reason).toBe("ws-closed");
    expect(r.otherOutcome).toBe("timeout");
  });

  it("a failed race whose WebSocket leg timed out carries the JSONP leg's reason", async () => {
    const race = raceBest2(channel, "http://b.test", 5000);
    wsLeg.settle("timeout", 5000);
    jsonpLeg.settle("error", 3, "network");
    expect(await race.done).toMatchObject({ outcome: "timeout", reason: "network", otherOutcome: "error" });
  });

  it("a won race carries the losing leg's reason when that leg failed", async () => {
    const race = raceBest2(channel, "http://b.test", 5000);
    jsonpLeg.settle("error", 1, "no-callback");
    wsLeg.settle("ok", 2);
    expect(await race.done).toMatchObject({
      outcome: "ok",
      winner: "ws",
      otherOutcome: "error",
      reason: "no-callback",
    });
  });

  it("races the WebSocket alone when the JSONP server is unreachable from this page", async () => {
    const race = raceBest2(channel, null, 5000);
    expect(sent).toEqual(["ws"]);
    wsLeg.settle("ok", 2);
    expect(await race.done).toMatchObject({ outcome: "ok", winner: "ws", otherOutcome: "error" });
  });

  // Every ending of the two legs, as prober.ts turns a race into a sample: the contract accepts each.
  const WS_ENDS: [ProbeResult["outcome"], ProbeResult["reason"]][] = [
    ["ok", undefined],
    ["timeout", undefined],
    ["error", "ws-connecting"],
    ["error", "ws-closed"],
    ["error", "ws-connect-timeout"],
    ["error", "ws-stale"],
  ];
  const JSONP_ENDS: [ProbeResult["outcome"], ProbeResult["reason"]][] = [
    ["ok", undefined],
    ["timeout", undefined],
    ["error", "network"],
    ["error", "no-callback"],
  ];
  it.each(
    WS_ENDS.flatMap((w) =>
      [...JSONP_ENDS, null].flatMap((j) => [true, false].map((wsFirst) => [w, j, wsFirst] as const)),
    ),
  )("ws %j, jsonp %j (null: blocked), ws first %s: a sample the contract accepts", async (w, j, wsFirst) => {
    const race = raceBest2(channel, j === null ? null : "http://b.test", 5000);
    const settleWs = () => wsLeg.settle(w[0], wsFirst ? 2 : 4, w[1]);
    if (wsFirst || j === null) settleWs();
    if (j !== null) jsonpLeg.settle(j[0], wsFirst ? 4 : 2, j[1]);
    if (!wsFirst && j !== null) settleWs();
    const r = await race.done;
    const sample = {
      seq: 1,
      t: 1_763_000_000_000,
      method: "best2",
      target: "A+B",
      ms: r.ms,
      outcome: r.outcome,
      otherMs: r.otherMs,
      otherOutcome: r.otherOutcome,
      ...(r.winner !== undefined ? { winner: r.winner } : {}),
      ...(r.reason !== undefined ? { reason: r.reason } : {}),
    };
    expect(readSample(sample)).toEqual({ ok: true, value: sample });
  });
});
