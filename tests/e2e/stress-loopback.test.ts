// The stress test in Chromium on loopback, where nothing queues but the two
// processes' sockets: every phase runs and is reported, every probe and
// baseline keeps going through it and carries its phase, the added latency
// stays near zero (grade A+), the export and the histogram page show the run;
// past the per-address budget the page says the server refused it (429); with
// --no-stress the page offers no test.
// @lane alone: the run loads the machine itself (loopback at hundreds of Mbit/s) and asserts what it measures
// under that load (grade A+, added latency under 5 ms, goodput): a neighbour would move both.
import { afterAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { artifactPath } from "../../testkit/browser.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { describeRun, runDurationMs, runStressTest, type StressPage } from "../helpers/stress-run.js";

const TIMINGS = { phaseMs: 8000, idleMs: 8000, cooldownMs: 4000 };
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});
const browser = browserForFile();

const asStressPage = (page: Page): StressPage => ({
  goto: (url) => page.goto(url),
  // Playwright's PageFunction is the same function, typed its own way.
  evaluate: (fn, arg) => page.evaluate(fn as never, arg) as never,
});

describe("stress test on loopback", () => {
  it("runs every phase with the probes and baselines going, adds no latency (A+), and shows on the export and the histogram page", {
    timeout: runDurationMs(TIMINGS) + 120_000,
  }, async () => {
    // Loopback moves gigabytes a phase: a budget that cannot run out.
    const server = await startServerProcess(["--stress-bytes-per-hour", String(2 ** 50)]);
    servers.push(server);
    const page = await browser().context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const run = await runStressTest(asStressPage(page), server.url, TIMINGS);
    console.log(describeRun(run));

    expect(run.outcome).toBe("complete");
    expect(run.phases.map((p) => p.name)).toEqual(["idle", "download", "upload", "bidirectional", "cooldown"]);
    const [idle, download, upload, both, cooldown] = run.phases;
    // Loopback: far beyond any real link.
    expect(download!.downMbps).toBeGreaterThan(100);
    expect(upload!.upMbps).toBeGreaterThan(100);
    expect(both!.downMbps).toBeGreaterThan(20);
    expect(both!.upMbps).toBeGreaterThan(20);
    expect(download!.streamsDown).toBeGreaterThanOrEqual(4);
    expect(idle!.downMbps).toBeNull();
    // Every probe and baseline kept running at 1 Hz in every phase.
    for (const p of run.phases)
      for (const m of ["xhr", "jsonp", "ws", "best2", "ping", "wsping", "tcprtt", "tcpminrtt"]) {
        const seconds = (p.end - p.start) / 1000;
        expect(p.latency[m]?.count ?? 0, `${m} in ${p.name}`).toBeGreaterThanOrEqual(Math.floor(seconds) - 3);
      }
    // Nothing queues on loopback: the WebSocket probe gains next to nothing under load.
    expect(run.grade).toBe("A+");
    for (const added of [run.addedMs.download, run.addedMs.upload]) expect(Math.abs(added!)).toBeLessThan(5);
    expect(run.verdict).toBe("none");
    expect(cooldown!.addedMs).not.toBeNull();
    expect(run.rpm).toBeGreaterThan(0);
    expect(download!.self!.count).toBeGreaterThan(5);

    // The export: the run's samples carry its phases, in order; the probe page's status says it is done.
    const csv = await page.evaluate(
      (id: string) => fetch(`/api/samples.csv?stressRun=${id}`).then((r) => r.text()),
      run.id,
    );
    const [head, ...lines] = csv.trim().split("\n");
    const cols = head!.split(",");
    const loads = lines.map((l) => l.split(",")[cols.indexOf("load")]);
    expect(new Set(loads)).toEqual(new Set(["idle", "download", "upload", "bidirectional", "cooldown"]));
    const downloadWs = lines.filter(
      (l) => l.split(",")[cols.indexOf("load")] === "download" && l.split(",")[cols.indexOf("method")] === "ws",
    );
    expect(downloadWs.length).toBeGreaterThanOrEqual(download!.latency.ws!.count);
    expect(await page.locator("#stress-status").textContent()).toMatch(/complete/);
    expect(errors).toEqual([]);

    // The histogram page's panel: the run, its grade, the table with idle beside each phase.
    const hist = await browser().context.newPage();
    await hist.goto(`${server.url}/histogram?range=custom&from=${run.start - 60_000}&to=${run.end + 60_000}`);
    const card = hist.locator(`.stress-run[data-run="${run.id}"]`);
    await card.waitFor({ timeout: 20_000 });
    expect(await card.locator(".grade").textContent()).toBe("A+");
    expect(await card.locator("thead th").allTextContents()).toEqual([
      "p50 / p99",
      "idle",
      "download",
      "upload",
      "bidirectional",
      "cooldown",
    ]);
    expect(await card.locator('tr[data-series="ws"] td').count()).toBe(5);
    expect(await card.locator('tr[data-series="ping"] td').count()).toBe(5);
    expect(await card.getAttribute("data-verdict")).toBe("none");
    await hist.screenshot({ path: artifactPath("stress-panel-loopback.png"), fullPage: true });
    await hist.close();
    await page.close();
  });

  it("past the per-address budget the load server answers 429 and the page says so", { timeout: 90_000 }, async () => {
    // 64 MiB an hour: loopback spends it in the download phase's first second.
    const server = await startServerProcess(["--stress-bytes-per-hour", String(64 * 1024 * 1024)]);
    servers.push(server);
    const page = await browser().context.newPage();
    const run = await runStressTest(asStressPage(page), server.url, { phaseMs: 5000, idleMs: 3000, cooldownMs: 2000 });
    expect(run.outcome).toBe("refused");
    expect(run.reason).toMatch(/stress-test bytes for the hour/);
    // The phases it began are kept: idle whole, download cut short.
    expect(run.phases.map((p) => p.name).slice(0, 2)).toEqual(["idle", "download"]);
    const status = await page.locator("#stress-status").textContent();
    expect(status).toMatch(/refused by the server \(429\)/);
    expect(status).toMatch(/next possible in \d+ min/);
    await page.close();
  });

  it("opted in on the page, a test runs now and then every hour, one tab at a time, kept across reloads", {
    timeout: 120_000,
  }, async () => {
    const server = await startServerProcess(["--stress-bytes-per-hour", String(2 ** 50)]);
    servers.push(server);
    const page = await browser().context.newPage();
    const short = "?stressPhaseMs=2000&stressIdleMs=2000&stressCooldownMs=2000";
    await page.goto(`${server.url}/${short}`);
    await page.locator("#stress-start").waitFor();
    const startMs = Date.now();
    expect(await page.locator("#stress-every").inputValue()).toBe("3600000");
    await page.locator("#stress-schedule").check();
    const runs = async () =>
      (await page.evaluate((from: number) => fetch(`/api/stress?from=${from}`).then((r) => r.json()), startMs - 1000))
        .runs as { outcome: string }[];
    // The first runs at once (in the next housekeeping slot), without ?stress=1.
    await expect
      .poll(async () => (await runs()).filter((r) => r.outcome === "complete").length, {
        timeout: 60_000,
        interval: 1000,
      })
      .toBe(1);
    const next = Number(await page.evaluate(() => localStorage.getItem("tailprobe.stress.nextMs")));
    expect(next).toBeGreaterThan(startMs + 3_600_000 - 60_000);
    expect(next).toBeLessThan(Date.now() + 3_600_000 + 1000);
    // A reload keeps the schedule, and the next test waits for its hour.
    await page.reload();
    await page.locator("#stress-schedule").waitFor();
    expect(await page.locator("#stress-schedule").isChecked()).toBe(true);
    await page.waitForTimeout(5000);
    expect(
      await page.evaluate(() => (window as unknown as { tailprobe: { stressActive: boolean } }).tailprobe.stressActive),
    ).toBe(false);
    expect(await runs()).toHaveLength(1);
    // Due again with two tabs open: one of them runs it.
    const other = await browser().context.newPage();
    await other.goto(`${server.url}/${short}`);
    await other.locator("#stress-schedule").waitFor();
    await page.evaluate(() => localStorage.setItem("tailprobe.stress.nextMs", String(Date.now())));
    await expect
      .poll(async () => (await runs()).filter((r) => r.outcome === "complete").length, {
        timeout: 60_000,
        interval: 1000,
      })
      .toBe(2);
    await page.waitForTimeout(5000);
    expect(await runs()).toHaveLength(2);
    await other.close();
    await page.close();
  });

  it("with --no-stress the page offers no stress test", { timeout: 30_000 }, async () => {
    const server = await startServerProcess(["--no-stress"]);
    servers.push(server);
    const page = await browser().context.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForFunction(
      () => (window as unknown as { tailprobe?: { ticks: number } }).tailprobe?.ticks ?? 0 > 1,
    );
    expect(await page.locator("#stress").isHidden()).toBe(true);
    await page.close();
  });
});
