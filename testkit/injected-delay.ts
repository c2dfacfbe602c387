// An injected delay shows as itself, in any engine: Toxiproxy sits in front
// of server B, the probe page on A reaches B only through it, and the proxy
// alternates between as-is and +INJECTED_MS on everything B sends back, in
// short blocks (on a shared machine load drifts by a millisecond or two over a
// minute; two long phases would measure the drift as well). A Node control
// prober (proxy-control.ts) sends the same requests to B through the same
// proxy: its shift is what the proxy really added, since on a busy machine
// the proxy's own timers wake late. Shared by tests/e2e/toxiproxy-shift.test.ts
// (assertions, any engine) and bench/engine-fidelity.ts (figures per engine).
import Database from "better-sqlite3";
import { bootstrapPercentileDiff } from "../shared/forensics/bootstrap.js";
import { mulberry32 } from "../shared/prng.js";
import { waitForDelivered } from "./delivered.js";
import type { EnginePage } from "./engines.js";
import { type ControlSample, startProxyControl } from "./proxy-control.js";
import { loadSampleTables } from "./sample-table.js";
import { waitFor } from "./server-process.js";
import type { Toxiproxy } from "./toxiproxy.js";

export const INJECTED_MS = 50;
/** Samples sent this close to a switch are left out: a probe in flight across it sees part of the change (ms). */
const SWITCH_GUARD_BEFORE_MS = 200;
const SWITCH_GUARD_AFTER_MS = 800;

export interface InjectedDelayPlan {
  /** Blocks per phase, alternating off, on, off, on, … */
  blocksPerPhase: number;
  /** Each block's length (ms). */
  blockMs: number;
  /** Called as each block starts, after the toxic is switched (a test plants a regression here). */
  onBlock?: (on: boolean) => Promise<void>;
}

interface Row {
  t: number;
  method: string;
  target: string;
  ms: number | null;
  outcome: string;
  winner: string | null;
}

export interface InjectedDelayResult {
  /** Median shift (on − off) per "method target" of xhr, jsonp, ws to A and B (ms). */
  shifts: Record<string, number>;
  /** Its 99 % bootstrap interval (ms). */
  intervals: Record<string, { lo: number; hi: number }>;
  /** What the proxy added per method, by the control prober's median shift (ms). */
  injected: Record<string, number>;
  /** ok samples per "method target" and phase: each median rests on these. */
  counts: Record<string, { off: number; on: number }>;
  /** Control samples per method and phase. */
  controlCounts: Record<string, { off: number; on: number }>;
  /** interval: the 99 % bootstrap interval of its median's shift, as for each probe above. */
  best2: {
    shiftMs: number;
    interval: { lo: number; hi: number };
    afterMs: number;
    racesAfter: number;
    wsWonAfter: number;
  };
  jsonpBAfterMs: number;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the phases on a probe page already opened on A (`page`), with B behind
 * the proxy named `proxyName` of `toxi` at `viaProxy` (host:port), and reads
 * what A stored.
 */
export async function measureInjectedDelay(
  page: EnginePage,
  aDbPath: string,
  toxi: Toxiproxy,
  proxyName: string,
  viaProxy: string,
  plan: InjectedDelayPlan,
): Promise<InjectedDelayResult> {
  await waitFor(
    async () => ((await page.evaluate<number>("window.tailprobe?.ticks ?? 0")) > 2 ? true : undefined),
    20_000,
    "the probe clock to tick",
  );
  const windows = { off: [] as [number, number][], on: [] as [number, number][] };
  const control = await startProxyControl(`http://${viaProxy}`);
  const begin = Date.now();
  let last = begin;
  try {
    for (let i = 0; i < 2 * plan.blocksPerPhase; i++) {
      const on = i % 2 === 1;
      if (on) await toxi.addLatency(proxyName, "delay", INJECTED_MS, "downstream");
      else if (i > 0) await toxi.removeToxic(proxyName, "delay");
      await plan.onBlock?.(on);
      const from = Date.now();
      await sleep(plan.blockMs);
      last = Date.now();
      windows[on ? "on" : "off"].push([from + SWITCH_GUARD_AFTER_MS, last - SWITCH_GUARD_BEFORE_MS]);
    }
  } finally {
    await toxi.removeToxic(proxyName, "delay").catch(() => undefined);
  }
  const controlSamples = await control.stop();
  await waitForDelivered(page, aDbPath);

  const db = new Database(aDbPath, { readonly: true });
  // Raw samples are blocks: read through the decoded TEMP view.
  const rows = loadSampleTables(db)
    .prepare("SELECT t, method, target, ms, outcome, winner FROM samples WHERE t >= ? AND t < ?")
    .all(begin, last) as Row[];
  db.close();
  const inPhase = (w: [number, number][]) => rows.filter((r) => w.some(([from, to]) => r.t >= from && r.t < to));
  const before = inPhase(windows.off);
  const after = inPhase(windows.on);
  const okMs = (set: Row[], method: string, target: string) =>
    set.filter((r) => r.method === method && r.target === target && r.outcome === "ok").map((r) => r.ms!);

  const shifts: Record<string, number> = {};
  const intervals: Record<string, { lo: number; hi: number }> = {};
  const counts: Record<string, { off: number; on: number }> = {};
  for (const method of ["xhr", "jsonp", "ws"]) {
    for (const target of ["A", "B"]) {
      const key = `${method} ${target}`;
      const on = okMs(after, method, target);
      const off = okMs(before, method, target);
      counts[key] = { off: off.length, on: on.length };
      shifts[key] = on.length > 0 && off.length > 0 ? median(on) - median(off) : Number.NaN;
      intervals[key] =
        on.length > 0 && off.length > 0
          ? bootstrapPercentileDiff(on, off, 50, { confidence: 0.99, random: mulberry32(20261123) })
          : { lo: Number.NaN, hi: Number.NaN };
    }
  }
  const controlIn = (w: [number, number][], method: string) =>
    controlSamples
      .filter((c: ControlSample) => c.method === method && w.some(([from, to]) => c.t >= from && c.t < to))
      .map((c) => c.ms);
  const injected: Record<string, number> = {};
  const controlCounts: Record<string, { off: number; on: number }> = {};
  for (const method of ["xhr", "jsonp", "ws"]) {
    const on = controlIn(windows.on, method);
    const off = controlIn(windows.off, method);
    controlCounts[method] = { off: off.length, on: on.length };
    injected[method] = on.length > 0 && off.length > 0 ? median(on) - median(off) : Number.NaN;
  }
  const races = after.filter((r) => r.method === "best2" && r.outcome === "ok");
  const best2After = okMs(after, "best2", "A+B");
  const best2Before = okMs(before, "best2", "A+B");
  const jsonpBAfter = okMs(after, "jsonp", "B");
  return {
    shifts,
    intervals,
    injected,
    counts,
    controlCounts,
    best2: {
      shiftMs: best2After.length && best2Before.length ? median(best2After) - median(best2Before) : Number.NaN,
      interval:
        best2After.length && best2Before.length
          ? bootstrapPercentileDiff(best2After, best2Before, 50, { confidence: 0.99, random: mulberry32(20261123) })
          : { lo: Number.NaN, hi: Number.NaN },
      afterMs: best2After.length ? median(best2After) : Number.NaN,
      racesAfter: races.length,
      wsWonAfter: races.filter((r) => r.winner === "ws").length,
    },
    jsonpBAfterMs: jsonpBAfter.length ? median(jsonpBAfter) : Number.NaN,
  };
}
