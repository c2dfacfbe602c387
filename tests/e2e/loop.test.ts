// The whole loop in a real browser: probe page → echo servers A and B →
// SQLite → /api/stats → histogram page. This is what a newcomer sees.
import { beforeAll, describe, expect, it } from "vitest";
import type { StatsResponse, StatsRow } from "../../shared/protocol.js";
import { artifactPath } from "../helpers/browser.js";
import { browserForFile, waitForPeerName } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../helpers/server-process.js";

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
    await page.waitForFunction(() => (window as unknown as { tailprobe?: { sent: number } }).tailprobe !== undefined, undefined, { timeout: 10_000 });
    await page.waitForTimeout(PROBE_SECONDS * 1000);
    // The live view shows each method's last latency and a running count.
    const liveText = await page.locator("body").innerText();
    expect(liveText).toMatch(/\d+ samples/);
    await page.screenshot({ path: artifactPath("loop-probe-page.png"), fullPage: true });

    // Everything the page measured reaches A's database within a couple of report cycles.
    const rows = await waitFor(async () => {
      const s = (await (await fetch(`${a.url}/api/stats?from=${startMs - 1000}`)).json()) as StatsResponse;
      const want = [["xhr", "A"], ["jsonp", "A"], ["ws", "A"], ["xhr", "B"], ["jsonp", "B"], ["ws", "B"], ["best2", "A+B"]];
      const found = want.map(([m, t]) => s.rows.find((r) => r.method === m && r.target === t));
      return found.every((r) => r !== undefined && r.count >= PROBE_SECONDS - 4) ? (found as StatsRow[]) : undefined;
    }, 15_000, "ok samples for every (method, server)");

    for (const r of rows) {
      const label = `${r.method} ${r.target}`;
      // One probe per method per second: no bursts, no silence.
      expect(r.count + r.failures, label).toBeLessThanOrEqual(PROBE_SECONDS + 8);
      expect(r.failures, label).toBeLessThanOrEqual(1);
      expect(r.min!, label).toBeGreaterThan(0);
      expect(r.max!, label).toBeLessThan(1000);
      expect(r.p50!, label).toBeLessThanOrEqual(r.p90!);
      expect(r.p90!, label).toBeLessThanOrEqual(r.p99!);
    }
    // Best of two cannot be slower than both of its legs by much: it is their minimum.
    const best2 = rows.find((r) => r.method === "best2")!;
    const wsA = rows.find((r) => r.method === "ws" && r.target === "A")!;
    expect(best2.p50!).toBeLessThan(wsA.p50! + 20);
    expect(consoleErrors, consoleErrors.join("\n")).toEqual([]);

    // The histogram page renders the same rows.
    const hist = await browser().context.newPage();
    await hist.goto(`${a.url}/histogram?range=15m`);
    await hist.waitForSelector('#stats-rows tr[data-method="best2"]', { timeout: 15_000 });
    for (const [m, t] of [["xhr", "A"], ["jsonp", "A"], ["ws", "A"], ["xhr", "B"], ["jsonp", "B"], ["ws", "B"], ["best2", "A+B"]]) {
      const row = hist.locator(`#stats-rows tr[data-method="${m}"][data-target="${t}"]`);
      await expect.poll(() => row.count(), { message: `${m} ${t} row` }).toBe(1);
      const cells = await row.locator("td").allInnerTexts();
      expect(cells.length, `${m} ${t}`).toBeGreaterThanOrEqual(12);
      expect(Number(cells[2]!.replace(/[^\d]/g, "")), `${m} ${t} samples`).toBeGreaterThanOrEqual(PROBE_SECONDS - 4);
    }
    await hist.screenshot({ path: artifactPath("loop-histogram-page.png"), fullPage: true });
    await page.close();
    await hist.close();
  });
});
