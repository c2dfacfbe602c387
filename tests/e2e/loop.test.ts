// The whole loop in a real browser: probe page → echo servers A and B →
// SQLite → /api/stats → histogram page. This is what a newcomer sees.
// @lane waiting: asserts counts, the order of each series' percentiles, answers within the timeout and due times one
// interval apart (the clock's steps), not latencies.
import { beforeAll, describe, expect, it } from "vitest";
import { INTERVAL_MS_DEFAULT, TIMEOUT_MS_DEFAULT } from "../../server/cli/options.js";
import type { StatsResponse, StatsRow } from "../../shared/contract/index.js";
import { artifactPath } from "../../testkit/browser.js";
import { waitForDelivered } from "../../testkit/delivered.js";
import { readSession } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess, waitForPeerName } from "../../testkit/server-process.js";

const PROBE_SECONDS = 12;

let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  b = await startServerProcess(["--name", "B", "--no-ping"]);
  a = await startServerProcess(["--name", "A", "--no-ping", "--peer", b.url]);
  // A learns B's name from B's /api/config before the page asks for its servers.
  await waitForPeerName(a, "B");
});

const browser = browserForFile(async () => {
  await a?.stop();
  await b?.stop();
});

describe("probe page → stats → histogram page", () => {
  it(`records ok samples for every method against A and B within ${PROBE_SECONDS} s`, { timeout: 90_000 }, async () => {
    const page = await browser().context.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(e.message));
    const startMs = Date.now();
    await page.goto(`${a.url}/`);
    await page.waitForFunction(
      () => (window as unknown as { tailprobe?: { sent: number } }).tailprobe !== undefined,
      undefined,
      { timeout: 10_000 },
    );
    await page.waitForTimeout(PROBE_SECONDS * 1000);
    // The live view shows each method's last latency and a running count.
    const liveText = await page.locator("body").innerText();
    expect(liveText).toMatch(/\d+ samples/);
    await page.screenshot({ path: artifactPath("loop-probe-page.png"), fullPage: true });

    // Everything the page measured reaches A's database within a couple of report cycles.
    const rows = await waitFor(
      async () => {
        const s = (await (await fetch(`${a.url}/api/stats?from=${startMs - 1000}`)).json()) as StatsResponse;
        const want = [
          ["xhr", "A"],
          ["jsonp", "A"],
          ["ws", "A"],
          ["xhr", "B"],
          ["jsonp", "B"],
          ["ws", "B"],
          ["best2", "A+B"],
        ];
        const found = want.map(([m, t]) => s.rows.find((r) => r.method === m && r.target === t));
        return found.every((r) => r !== undefined && r.count >= PROBE_SECONDS - 4) ? (found as StatsRow[]) : undefined;
      },
      15_000,
      "ok samples for every (method, server)",
    );

    for (const r of rows) {
      const label = `${r.method} ${r.target}`;
      expect(r.failures, label).toBeLessThanOrEqual(1);
      // Ordered, and an answer later than the timeout would be a timeout, not a latency.
      expect(r.min!, label).toBeGreaterThan(0);
      expect(r.min!, label).toBeLessThanOrEqual(r.p50!);
      expect(r.p50!, label).toBeLessThanOrEqual(r.p90!);
      expect(r.p90!, label).toBeLessThanOrEqual(r.p99!);
      expect(r.p99!, label).toBeLessThanOrEqual(r.max!);
      expect(r.max!, label).toBeLessThanOrEqual(TIMEOUT_MS_DEFAULT);
    }

    expect(consoleErrors, consoleErrors.join("\n")).toEqual([]);

    // The histogram page renders the same rows.
    const hist = await browser().context.newPage();
    await hist.goto(`${a.url}/histogram?range=15m`);
    await hist.waitForSelector('#stats-rows tr[data-method="best2"]', { timeout: 15_000 });
    for (const [m, t] of [
      ["xhr", "A"],
      ["jsonp", "A"],
      ["ws", "A"],
      ["xhr", "B"],
      ["jsonp", "B"],
      ["ws", "B"],
      ["best2", "A+B"],
    ]) {
      const row = hist.locator(`#stats-rows tr[data-method="${m}"][data-target="${t}"]`);
      await expect.poll(() => row.count(), { message: `${m} ${t} row` }).toBe(1);
      const cells = await row.locator("td").allInnerTexts();
      expect(cells.length, `${m} ${t}`).toBeGreaterThanOrEqual(12);
      expect(Number(cells[2]!.replace(/[^\d]/g, "")), `${m} ${t} samples`).toBeGreaterThanOrEqual(PROBE_SECONDS - 4);
    }
    await hist.screenshot({ path: artifactPath("loop-histogram-page.png"), fullPage: true });

    // One probe per method per second, no bursts and no silence: the stored
    // due times of each (method, server) step exactly one interval apart. A
    // probe is stored when it settles, so near the end one still in flight may
    // leave a hole; probes due TIMEOUT_MS before the read have all settled.
    const readAtMs = Date.now();
    await waitForDelivered(page, a.dbPath);
    const sessionId = await page.evaluate(
      () => (window as unknown as { tailprobe: { sessionId: string } }).tailprobe.sessionId,
    );
    const stored = readSession(a.dbPath, sessionId);
    const settledBefore = readAtMs - TIMEOUT_MS_DEFAULT - INTERVAL_MS_DEFAULT;
    for (const [m, t] of [
      ["xhr", "A"],
      ["jsonp", "A"],
      ["ws", "A"],
      ["xhr", "B"],
      ["jsonp", "B"],
      ["ws", "B"],
      ["best2", "A+B"],
    ]) {
      const due = stored
        .filter((r) => r.method === m && r.target === t)
        .map((r) => r.scheduledT!)
        .sort((x, y) => x - y);
      const steps = due.slice(1).map((d, i) => [due[i]!, d - due[i]!] as const);
      expect(due.length, `${m} ${t} probes`).toBeGreaterThanOrEqual(PROBE_SECONDS - 4);
      expect(due.filter((d) => d < settledBefore).length, `${m} ${t} settled probes`).toBeGreaterThanOrEqual(4);
      expect(
        steps.filter(([, step]) => step < INTERVAL_MS_DEFAULT),
        `${m} ${t} bursts: [due, step ms]`,
      ).toEqual([]);
      expect(
        steps.filter(([d, step]) => d < settledBefore && step !== INTERVAL_MS_DEFAULT),
        `${m} ${t} holes: [due, step ms]`,
      ).toEqual([]);
    }
    // Best of two is the faster of its legs: each race's latency is at most the other leg's.
    const racesWithBothLegs = stored.filter((r) => r.method === "best2" && r.outcome === "ok" && r.otherMs !== null);
    expect(racesWithBothLegs.length).toBeGreaterThanOrEqual(PROBE_SECONDS - 5);
    expect(
      racesWithBothLegs.filter((r) => r.ms! > r.otherMs!),
      "races slower than their losing leg",
    ).toEqual([]);
    await page.close();
    await hist.close();
  });
});
