// The histogram page in Chromium against a real server holding six minutes
// of synthetic samples with a planted spike on xhr→A and a bimodal jsonp→B:
// every chart draws and names its series, dragging over the spike focuses
// the table on it and "everything except this" makes xhr→A's p99 drop, the
// URL brings the same view back, a range holding none of the stored samples
// says when the last report came instead of asking for a probe tab, and the
// light, dark and phone screenshots are saved for a person to look at.
// @lane waiting: draws stored synthetic samples and asserts what the page shows, not how fast.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { artifactPath, launchBrowser, type LaunchedBrowser } from "../../testkit/browser.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";
import { ingest, SKIP_EVERY_S, syntheticSamples } from "../../testkit/synthetic-latency.js";

const SECONDS = 360;
const SPIKE_START_S = 180;
const SPIKE_LENGTH_S = 30;

let server: ServerProcess;
let peerB: ServerProcess;
let browser: LaunchedBrowser;
// Whole seconds, ending a little in the past so every sample is inside "now".
const startMs = Math.floor((Date.now() - (SECONDS + 20) * 1000) / 1000) * 1000;
const spike = { fromMs: startMs + SPIKE_START_S * 1000, toMs: startMs + (SPIKE_START_S + SPIKE_LENGTH_S) * 1000 };
const range = { fromMs: startMs - 30_000, toMs: startMs + (SECONDS + 30) * 1000 };

type Probe = { generation: number; completed: number; idle: boolean; range: { fromMs: number; toMs: number } | null };

/** The time charts' x range as the page drew it (they start at the range's first sample). */
const axisOf = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { tailprobeHistogram: { axis: { fromMs: number; toMs: number } } }).tailprobeHistogram.axis,
  );

async function generation(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { tailprobeHistogram: Probe }).tailprobeHistogram.generation);
}

/** Waits until a refresh newer than `after` has finished. */
async function settled(page: Page, after: number): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const t = (window as unknown as { tailprobeHistogram?: Probe }).tailprobeHistogram;
      return t?.idle && t.completed > n;
    },
    after,
    // Generous: five helpers share two cores; a refresh normally settles in well under a second.
    { timeout: 20_000 },
  );
}

async function cellMs(page: Page, method: string, target: string, col: "p50" | "p99" | "p999"): Promise<number> {
  const raw = await page
    .locator(`#stats-rows tr[data-method="${method}"][data-target="${target}"] td[data-col="${col}"]`)
    .getAttribute("data-ms");
  return Number(raw);
}
const p99Of = (page: Page, method: string, target: string) => cellMs(page, method, target, "p99");

async function samplesOf(page: Page, method: string, target: string): Promise<number> {
  const cells = await page
    .locator(`#stats-rows tr[data-method="${method}"][data-target="${target}"] td`)
    .allInnerTexts();
  return Number(cells[2]!.replace(/[^\d]/g, ""));
}

beforeAll(async () => {
  // Loading synthetic data is a lab run (no budgets), and its target B must be a server A knows:
  // a real one, since the page asks its peers for their config (a dead address is a console error).
  peerB = await startServerProcess(["--name", "B", "--no-ping"]);
  server = await startServerProcess(["--name", "A", "--no-ping", "--no-rate-limit", "--peer", `B=${peerB.url}`]);
  const samples = syntheticSamples({ startMs, seconds: SECONDS, spike });
  expect(await ingest(server.url, samples)).toBe(samples.length);
  browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await peerB?.stop();
});

describe("histogram page", () => {
  it("a newcomer's default view draws every chart with named series", { timeout: 30_000 }, async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
    await page.goto(`${server.url}/histogram`);
    await settled(page, 0);
    expect(await page.locator("#range-preset").inputValue()).toBe("1h");
    for (const id of ["histogram-chart", "cdf-chart", "heatmap-chart"]) {
      expect(await page.locator(`#${id} canvas`).count(), id).toBe(1);
    }
    const histLegend = await page.locator("#histogram-chart .u-legend").innerText();
    const cdfLegend = await page.locator("#cdf-chart .u-legend").innerText();
    for (const name of ["XHR · A", "JSONP · B", "WebSocket · A", "Ping · B", "Best of two · A+B"]) {
      expect(histLegend, `histogram legend names ${name}`).toContain(name);
      expect(cdfLegend, `CDF legend names ${name}`).toContain(name);
    }
    // One latency-over-time panel per series, each with its canvas and legend.
    // (A's own probes of B, peerhttp and peerws, may have joined them: the default range reaches now.)
    const panels = page.locator('#timeseries-panels figure.panel:not([data-series^="peer"])');
    expect(await panels.count()).toBe(9);
    expect(await page.locator('#timeseries-panels figure[data-series="xhr@A"] figcaption').innerText()).toBe("XHR · A");
    expect(await page.locator('#timeseries-panels figure[data-series="xhr@A"] canvas').count()).toBe(1);
    expect(await page.locator('#timeseries-panels figure[data-series="xhr@A"] .u-legend').innerText()).toMatch(
      /p50[\s\S]*p90[\s\S]*p99[\s\S]*max[\s\S]*failures/,
    );
    expect(await page.locator("#heat-series").inputValue()).toBe("xhr@A");
    // The client picker names the client by its label and browser family, never more of its user agent (docs/security.md).
    await page.waitForFunction(() => document.querySelectorAll("#client option").length > 1, undefined, {
      timeout: 5_000,
    });
    const clientNames = await page.locator("#client").innerText();
    expect(clientNames).toMatch(/synthetic-laptop — Chrome/);
    expect(clientNames).not.toMatch(/Linux|Mozilla|AppleWebKit/);
    // Skipped ticks have a column of their own: neither latency nor failure.
    const wsB = await page.locator('#stats-rows tr[data-method="ws"][data-target="B"] td').allInnerTexts();
    expect(wsB[4]).toBe(String(Math.ceil(SECONDS / SKIP_EVERY_S)));
    expect(Number(wsB[2]!.replace(/[^\d]/g, ""))).toBe(SECONDS - Math.ceil(SECONDS / SKIP_EVERY_S));
    // Thin percentiles are marked: 360 samples cannot support a p99.9.
    expect(
      await page
        .locator('#stats-rows tr[data-method="ws"][data-target="A"] td[data-col="p999"]')
        .getAttribute("data-thin"),
    ).toBe("true");
    expect(
      await page
        .locator('#stats-rows tr[data-method="ws"][data-target="A"] td[data-col="p90"]')
        .getAttribute("data-thin"),
    ).toBeNull();
    // Unticking a method filters every view by it; the box keeps the keyboard focus.
    const before = await generation(page);
    const jsonpBox = page.locator('#picker input[name="method"][value="jsonp"]');
    await jsonpBox.focus();
    await page.keyboard.press("Space");
    await settled(page, before);
    const methods = new URL(page.url()).searchParams.get("method")!.split(",");
    expect(methods).not.toContain("jsonp");
    expect(methods).toContain("xhr");
    expect(await page.locator('#stats-rows tr[data-method="jsonp"]').count()).toBe(0);
    expect(await page.locator('#timeseries-panels figure[data-series="jsonp@B"]').count()).toBe(0);
    expect(await page.locator("#histogram-chart .u-legend").innerText()).not.toContain("JSONP");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value)).toBe("jsonp");
    // Mount points for the other panels are there.
    expect(await page.locator("section#notices").count()).toBe(1);
    expect(await page.locator("section#races").count()).toBe(1);
    expect(errors, errors.join("\n")).toEqual([]);
    await page.close();
  });

  it("dragging over the spike focuses on it; inverting drops xhr A's p99; the URL restores the view", {
    timeout: 60_000,
  }, async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.url}/histogram?range=custom&from=${range.fromMs}&to=${range.toMs}`);
    await settled(page, 0);
    const fullP99 = await p99Of(page, "xhr", "A");
    const fullCount = await samplesOf(page, "xhr", "A");
    const wsMedian = await cellMs(page, "ws", "A", "p50");
    expect(fullCount).toBe(SECONDS);
    expect(fullP99, "the spike owns xhr A's tail").toBeGreaterThanOrEqual(400);

    // Drag across the spike on the xhr A panel: pixel = left + share of the x range × width.
    // The charts start at the range's first sample, 30 s after the range.
    const axis = await axisOf(page);
    expect(axis.fromMs).toBeGreaterThan(range.fromMs);
    expect(axis.fromMs).toBeLessThanOrEqual(startMs);
    expect(axis.toMs).toBe(range.toMs);
    const over = page.locator('#timeseries-panels figure[data-series="xhr@A"] .u-over');
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    const xOf = (t: number) => box.x + ((t - axis.fromMs) / (axis.toMs - axis.fromMs)) * box.width;
    const y = box.y + box.height / 2;
    const before = await generation(page);
    await page.mouse.move(xOf(spike.fromMs - 3000), y);
    await page.mouse.down();
    await page.mouse.move(xOf((spike.fromMs + spike.toMs) / 2), y, { steps: 4 });
    await page.mouse.move(xOf(spike.toMs + 3000), y, { steps: 4 });
    await page.mouse.up();
    await settled(page, before);
    const url = new URL(page.url());
    const focus = url.searchParams.get("focus")!.split("-").map(Number);
    expect(focus[0]!).toBeGreaterThan(spike.fromMs - 15_000);
    expect(focus[0]!).toBeLessThanOrEqual(spike.fromMs);
    expect(focus[1]!).toBeGreaterThanOrEqual(spike.toMs - 1000);
    expect(focus[1]!).toBeLessThan(spike.toMs + 15_000);
    // Focused on the spike: the table holds only (about) its 30 samples, all slow.
    const focusedCount = await samplesOf(page, "xhr", "A");
    expect(focusedCount).toBeGreaterThanOrEqual(SPIKE_LENGTH_S - 1);
    expect(focusedCount).toBeLessThan(SPIKE_LENGTH_S + 30);
    expect(await page.locator("#focus-caption").innerText()).toMatch(/only/);
    expect(await p99Of(page, "xhr", "A"), "the window holds the spike").toBeGreaterThanOrEqual(400);

    // "Everything except this spike": the tail goes away with it.
    const beforeInvert = await generation(page);
    await page.click("#focus-invert");
    await settled(page, beforeInvert);
    expect(new URL(page.url()).searchParams.get("invert")).toBe("1");
    expect(await page.locator("#focus-invert").getAttribute("aria-pressed")).toBe("true");
    const exceptP99 = await p99Of(page, "xhr", "A");
    const exceptCount = await samplesOf(page, "xhr", "A");
    expect(exceptCount).toBe(fullCount - focusedCount);
    expect(exceptP99, "p99 without the spike").toBeLessThan(fullP99 / 2);
    expect(exceptP99).toBeLessThan(400);
    // A series without the spike hardly changes: ws A keeps its median within 10%.
    expect(Math.abs((await cellMs(page, "ws", "A", "p50")) - wsMedian)).toBeLessThan(wsMedian * 0.1);
    // The heatmap has no legend: pointing at it (here, the top of the spike) says what the cell holds.
    const heat = page.locator("#heatmap-chart .u-over");
    await heat.scrollIntoViewIfNeeded();
    const hm = (await heat.boundingBox())!;
    const now = await axisOf(page);
    await page.mouse.move(
      hm.x + ((spike.fromMs + 15_000 - now.fromMs) / (now.toMs - now.fromMs)) * hm.width,
      hm.y + hm.height * 0.08,
    );
    await expect
      .poll(() => page.locator("#heatmap-scale .heat-readout").innerText())
      .toMatch(/\d+:\d+:\d+.* · .*: \d+ samples?$/);

    // Zoom the histogram into its body, then let a live refresh (every 5 s) pass:
    // the zoom, the focus and the numbers stay.
    const hist = page.locator("#histogram-chart .u-over");
    await hist.scrollIntoViewIfNeeded();
    const hb = (await hist.boundingBox())!;
    const unzoomed = await page.locator("#histogram-chart").getAttribute("data-x-range");
    await page.mouse.move(hb.x + hb.width * 0.1, hb.y + hb.height / 2);
    await page.mouse.down();
    await page.mouse.move(hb.x + hb.width * 0.6, hb.y + hb.height / 2, { steps: 5 });
    await page.mouse.up();
    const zoomed = await page.locator("#histogram-chart").getAttribute("data-x-range");
    expect(zoomed).not.toBe(unzoomed);
    const beforeTick = await generation(page);
    await settled(page, beforeTick); // the next periodic refresh, no user action
    expect(await page.locator("#histogram-chart").getAttribute("data-x-range")).toBe(zoomed);
    expect(new URL(page.url()).searchParams.get("invert")).toBe("1");
    expect(await p99Of(page, "xhr", "A")).toBe(exceptP99);
    await page.screenshot({ path: artifactPath("histogram-page-light.png"), fullPage: true });

    // Reload: the same view comes back from the URL alone.
    const viewUrl = page.url();
    await page.reload();
    await settled(page, 0);
    expect(page.url()).toBe(viewUrl);
    expect(await page.locator("#focus-invert").getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator("#range-preset").inputValue()).toBe("custom");
    expect(await p99Of(page, "xhr", "A")).toBe(exceptP99);
    expect(await page.locator("#focus-caption").innerText()).toMatch(/except/);

    // Dark theme and a phone, same view.
    console.log("simulated: dark colour scheme (emulateMedia) and a 390×844 phone viewport");
    await page.emulateMedia({ colorScheme: "dark" });
    const beforeDark = await generation(page);
    await settled(page, beforeDark - 1);
    await page.waitForTimeout(300);
    await page.screenshot({ path: artifactPath("histogram-page-dark.png"), fullPage: true });
    // A phone opening the shared link: the picker starts folded, charts stack.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await settled(page, 0);
    expect(await page.locator("#picker-wrap").getAttribute("open")).toBeNull();
    await page.waitForTimeout(300);
    await page.screenshot({ path: artifactPath("histogram-page-phone-dark.png"), fullPage: true });
    await page.emulateMedia({ colorScheme: "light" });
    await page.waitForTimeout(500);
    await page.screenshot({ path: artifactPath("histogram-page-phone-light.png"), fullPage: false });
    expect(errors, errors.join("\n")).toEqual([]);
    await page.close();
  });
  it("timeouts in the tail move xhr B's p99.9 to the timeout; the races panel follows the focus window", {
    timeout: 60_000,
  }, async () => {
    const page = await browser.context.newPage();
    const base = `${server.url}/histogram?range=custom&from=${range.fromMs}&to=${range.toMs}`;
    await page.goto(base);
    await settled(page, 0);
    const racesCell = page.locator("#best2-table tbody tr:first-child td:nth-child(2)");
    await expect.poll(() => racesCell.innerText()).toBe(SECONDS.toLocaleString("en-US"));
    // The synthetic races are 70 % WebSocket wins.
    expect(await page.locator("#best2-table tbody tr:first-child td:nth-child(4)").innerText()).toMatch(
      /^70(\.0)? % WS A$/,
    );
    const okOnly = await cellMs(page, "xhr", "B", "p999");
    const timeouts = SECONDS - (await samplesOf(page, "xhr", "B"));
    expect(timeouts, "xhr B has planted timeouts").toBeGreaterThan(0);
    expect(okOnly).toBeLessThan(5000);

    const before = await generation(page);
    await page.check("#flag-timeouts");
    await settled(page, before);
    expect(new URL(page.url()).searchParams.get("timeouts")).toBe("1");
    expect(await cellMs(page, "xhr", "B", "p999"), "each timeout counts at 5 s").toBe(5000);
    expect(await samplesOf(page, "xhr", "B")).toBe(SECONDS);
    expect(await page.locator("#population-note").innerText()).toMatch(/timeout/);

    // Focus on the spike through the URL: the races panel counts only its races.
    await page.goto(`${base}&focus=${spike.fromMs}-${spike.toMs - 1}&timeouts=1`);
    await settled(page, 0);
    expect(await page.locator("#flag-timeouts").isChecked()).toBe(true);
    await expect.poll(() => racesCell.innerText()).toBe(String(SPIKE_LENGTH_S));
    await page.close();
  });

  it("a slow query shows progress while the rest renders, and a newer view aborts it (simulated: a delayed response)", {
    timeout: 30_000,
  }, async () => {
    console.log("simulated: the first /api/timeseries response held back 8 s by a Playwright route");
    const page = await browser.context.newPage();
    const aborted: string[] = [];
    page.on(
      "requestfailed",
      (r) => void (r.url().includes("/api/timeseries") && aborted.push(r.failure()?.errorText ?? "")),
    );
    // Only the first timeseries request is slow: the one the view change must abort.
    let slow = true;
    await page.route("**/api/timeseries?**", async (route) => {
      if (slow) {
        slow = false;
        // Long enough that the view change below always lands while it is pending, even on a loaded machine.
        await new Promise((r) => setTimeout(r, 8000));
      }
      await route.continue().catch(() => undefined); // already aborted by the page
    });
    await page.goto(`${server.url}/histogram?range=custom&from=${range.fromMs}&to=${range.toMs}`);
    await page.locator('#stats-rows tr[data-method="xhr"][data-target="A"]').waitFor({ timeout: 10_000 });
    // The table answered; the page says it is still loading instead of looking frozen.
    await expect.poll(() => page.locator("#updated").innerText(), { timeout: 5_000 }).toMatch(/loading/);
    expect(await page.locator("main").getAttribute("aria-busy")).toBe("true");
    expect(await page.locator("#histogram-chart canvas").count()).toBe(1);
    // A newer view (share instead of counts) cancels the stale request.
    const before = await generation(page);
    await page.selectOption("#hist-scale", "share");
    await settled(page, before);
    expect(new URL(page.url()).searchParams.get("hist")).toBe("share");
    expect(aborted.length, "the stale timeseries request was aborted").toBeGreaterThanOrEqual(1);
    expect(await page.locator("#updated").innerText()).toMatch(/updated/);
    expect(await page.locator("main").getAttribute("aria-busy")).toBe("false");
    // The synthetic series' panels; A's own probes of B (peerhttp, peerws) join them once stored, as the range reaches now.
    expect(await page.locator('#timeseries-panels figure.panel:not([data-series^="peer"])').count()).toBe(9);
    await page.close();
  });

  it("a range with nothing in it says when the last report came and shows everything in one click", {
    timeout: 30_000,
  }, async () => {
    const page = await browser.context.newPage();
    // An hour that ended an hour before the first sample: the store is not empty, this range is.
    await page.goto(`${server.url}/histogram?range=custom&from=${startMs - 7_200_000}&to=${startMs - 3_600_000}`);
    await settled(page, 0);
    const note = await page.locator("#stats-rows td.empty").innerText();
    expect(note).toMatch(/^no samples in this range; the last report arrived .+ ago\)/);
    expect(note, "not the first-run hint").not.toContain("open the probe page");
    // A filter is named as a possible cause.
    await page.goto(
      `${server.url}/histogram?range=custom&from=${startMs - 7_200_000}&to=${startMs - 3_600_000}&method=xhr`,
    );
    await settled(page, 0);
    expect(await page.locator("#stats-rows td.empty").innerText()).toContain(
      "no samples in this range with these filters",
    );
    // The heatmap's colour key says the same rather than draw a ramp from 1 to 1.
    expect(await page.locator("#heatmap-scale").innerText()).toMatch(/^no samples in this range/);
    const shown = await generation(page);
    await page.locator("#show-all").click();
    await settled(page, shown);
    expect(await page.locator("#range-preset").inputValue()).toBe("all");
    expect(new URL(page.url()).searchParams.get("range")).toBe("all");
    expect(await samplesOf(page, "xhr", "A")).toBeGreaterThan(300);
    expect(await page.locator("#heatmap-scale").innerText()).toMatch(/^samples per cell: 1\s+\d+ \(log colour scale\)/);
    // Already showing everything, a client with no samples: the filter is named, and no button offers what is shown.
    await page.goto(`${server.url}/histogram?range=all&client=nosuchclient1`);
    await settled(page, 0);
    expect(await page.locator("#stats-rows td.empty").innerText()).toContain(
      "no samples in this range with these filters",
    );
    expect(await page.locator("#show-all").count()).toBe(0);
    await page.close();
  });
});
