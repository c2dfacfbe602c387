// The whole loop in the lane's engine: probe page → echo servers A and B
// (separate processes on loopback, each measuring ping, WebSocket ping frames
// and kernel TCP RTT towards the page) → A's SQLite → /api/stats → the
// histogram page, drawn by the same engine. All of it is real; nothing is
// simulated. Chromium's own, longer version is tests/e2e/loop.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { INTERVAL_MS_DEFAULT, TIMEOUT_MS_DEFAULT } from "../../server/cli/options.js";
import type { StatsResponse, StatsRow } from "../../shared/contract/index.js";
import { artifactPath } from "../../testkit/browser.js";
import { waitForDelivered } from "../../testkit/delivered.js";
import { startServerProcess, type ServerProcess, waitFor } from "../../testkit/server-process.js";
import { readSession, sleep } from "../helpers/durability.js";
import { waitForPeerName } from "../../testkit/server-process.js";
import { engineForFile, laneEngine } from "../helpers/engine-lane.js";

const PROBE_SECONDS = 15;
const PROBES = [
  ["xhr", "A"],
  ["jsonp", "A"],
  ["ws", "A"],
  ["xhr", "B"],
  ["jsonp", "B"],
  ["ws", "B"],
  ["best2", "A+B"],
] as const;
/** What the page detects in each lane (client/src/probe/engine.ts). */
const PAGE_ENGINE = { chromium: "chromium", firefox: "gecko", webkit: "webkit" } as const;
const BASELINES = ["ping", "wsping", "tcprtt"].flatMap((m) => ["A", "B"].map((t) => [m, t] as const));

let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  b = await startServerProcess(["--name", "B"]);
  a = await startServerProcess(["--name", "A", "--peer", b.url]);
  await waitForPeerName(a, "B");
});

const browser = engineForFile(async () => {
  await a?.stop();
  await b?.stop();
});

describe(`the whole loop in ${laneEngine()}`, () => {
  it(`every method to A and B at 1 Hz, baselines from both, stats and the histogram page`, {
    timeout: 120_000,
  }, async () => {
    const page = await browser().newPage();
    const startMs = Date.now();
    await page.goto(`${a.url}/`);
    await waitFor(
      async () => ((await page.evaluate<number>("window.tailprobe?.ticks ?? 0")) > 0 ? true : undefined),
      15_000,
      "the probe clock to tick",
    );
    const facts = await page.evaluate<{ isolated: boolean; resolutionMs: number | null; ua: string }>(
      "({ isolated: crossOriginIsolated, resolutionMs: window.tailprobe.timerResolutionMs ?? null, ua: navigator.userAgent })",
    );
    expect(facts.isolated, "cross-origin isolated").toBe(true);
    await sleep(PROBE_SECONDS * 1000);
    expect(await page.evaluate<string>("document.getElementById('count').textContent")).toMatch(/\d+ samples/);
    await page.screenshot(artifactPath(`engine-loop-probe-${laneEngine()}.png`));

    const stats = await waitFor(
      async () => {
        const s = (await (await fetch(`${a.url}/api/stats?from=${startMs - 1000}`)).json()) as StatsResponse;
        const find = (m: string, t: string) => s.rows.find((r) => r.method === m && r.target === t);
        const probes = PROBES.map(([m, t]) => find(m, t));
        const baselines = BASELINES.map(([m, t]) => find(m, t));
        const enough = (min: number) => (r: StatsRow | undefined) => r !== undefined && r.count >= min;
        return probes.every(enough(PROBE_SECONDS - 4)) && baselines.every(enough(PROBE_SECONDS - 5))
          ? { probes: probes as StatsRow[], baselines: baselines as StatsRow[], engines: s.engines }
          : undefined;
      },
      20_000,
      "ok samples for every (method, server) and every baseline",
    );
    for (const r of [...stats.probes, ...stats.baselines]) {
      const label = `${r.method} ${r.target}`;
      expect(r.failures, label).toBeLessThanOrEqual(1);
      expect(r.min!, label).toBeGreaterThan(0);
      expect(r.min!, label).toBeLessThanOrEqual(r.p50!);
      expect(r.p50!, label).toBeLessThanOrEqual(r.p99!);
      expect(r.p99!, label).toBeLessThanOrEqual(r.max!);
      expect(r.max!, label).toBeLessThanOrEqual(TIMEOUT_MS_DEFAULT);
    }
    // The session says which engine timed it and how finely, as the page measured them.
    expect(stats.engines).toEqual([
      { engine: PAGE_ENGINE[laneEngine()], sessions: 1, timerResolutionMs: facts.resolutionMs },
    ]);
    expect(stats.probes.map((r) => r.timerResolutionMs)).toEqual(PROBES.map(() => facts.resolutionMs));
    expect(stats.baselines.map((r) => r.timerResolutionMs)).toEqual(BASELINES.map(() => null));
    expect(await page.errors()).toEqual([]);

    // One probe per method per second: due times step exactly one interval
    // (probes due within a timeout of the read may not have settled yet).
    const readAtMs = Date.now();
    await waitForDelivered(page, a.dbPath);
    const sessionId = await page.evaluate<string>("window.tailprobe.sessionId");
    const stored = readSession(a.dbPath, sessionId);
    const settledBefore = readAtMs - TIMEOUT_MS_DEFAULT - INTERVAL_MS_DEFAULT;
    for (const [m, t] of PROBES) {
      const due = stored
        .filter((r) => r.method === m && r.target === t)
        .map((r) => r.scheduledT!)
        .sort((x, y) => x - y);
      const steps = due.slice(1).map((d, i) => [due[i]!, d - due[i]!] as const);
      expect(due.length, `${m} ${t} probes`).toBeGreaterThanOrEqual(PROBE_SECONDS - 4);
      expect(
        steps.filter(([, step]) => step < INTERVAL_MS_DEFAULT),
        `${m} ${t} bursts`,
      ).toEqual([]);
      expect(
        steps.filter(([d, step]) => d < settledBefore && step !== INTERVAL_MS_DEFAULT),
        `${m} ${t} holes`,
      ).toEqual([]);
    }
    const races = stored.filter((r) => r.method === "best2" && r.outcome === "ok" && r.otherMs !== null);
    expect(races.length).toBeGreaterThanOrEqual(PROBE_SECONDS - 5);
    expect(
      races.filter((r) => r.ms! > r.otherMs!),
      "races slower than their losing leg",
    ).toEqual([]);

    // The histogram page, in the same engine, draws the same rows.
    const hist = await browser().newPage();
    await hist.goto(`${a.url}/histogram?range=15m`);
    const drawn = await waitFor(
      async () => {
        const rows = await hist.evaluate<[string, string, number][]>(`Array.from(
          document.querySelectorAll("#stats-rows tr[data-method]"),
          (tr) => [tr.dataset.method, tr.dataset.target, Number(tr.cells[2].textContent.replace(/[^0-9]/g, ""))])`);
        return rows.some(([m]) => m === "best2") ? rows : undefined;
      },
      20_000,
      "the histogram page's table",
    );
    for (const [m, t] of [...PROBES, ...BASELINES]) {
      const row = drawn.find(([rm, rt]) => rm === m && rt === t);
      expect(row, `${m} ${t} row`).toBeDefined();
      expect(row![2], `${m} ${t} samples`).toBeGreaterThanOrEqual(PROBE_SECONDS - 5);
    }
    expect(await hist.errors()).toEqual([]);
    await hist.screenshot(artifactPath(`engine-loop-histogram-${laneEngine()}.png`));
    console.log(
      `${laneEngine()} loop, all real (loopback servers A and B, their baselines, this engine's page): ` +
        `${stored.length} samples stored, timer resolution ${facts.resolutionMs} ms, cross-origin isolated ${facts.isolated}; ` +
        `p50 ms ${stats.probes.map((r) => `${r.method} ${r.target} ${r.p50!.toFixed(2)}`).join(", ")}`,
    );
    await hist.close();
    await page.close();
  });
});
