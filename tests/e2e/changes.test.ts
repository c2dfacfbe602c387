// The histogram page in Chromium over four hours of 1 Hz samples whose path
// to B became 20 ms slower 70 minutes ago: the changes list names the jump on
// XHR and ping to B ("network path"), each is marked on its time chart,
// choosing one (from the list, or its mark) opens the compare panel on the
// series after against before with its intervals and rank test, and the
// screenshot is saved for a person to look at.
// @lane waiting: draws stored synthetic samples (the jump is planted in them) and asserts what the page lists
// and shows, not how fast.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sample } from "../../shared/contract/index.js";
import { artifactPath, launchBrowser, type LaunchedBrowser } from "../../testkit/browser.js";
import { mulberry32 as prng } from "../../shared/prng.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";

const MINUTE_MS = 60_000;
const SHIFT_MS = Math.floor((Date.now() - 70 * MINUTE_MS) / (5 * MINUTE_MS)) * 5 * MINUTE_MS + 2 * MINUTE_MS;
const START_MS = SHIFT_MS - 180 * MINUTE_MS;
const END_MS = SHIFT_MS + 65 * MINUTE_MS;

let server: ServerProcess;
let peerB: ServerProcess;
let browser: LaunchedBrowser;

/** XHR (with its server time) and ping to B once a second: an 18 ms path, 38 ms from the shift on. */
function samples(): Sample[] {
  const rand = prng(23);
  const out: Sample[] = [];
  const g = () => Math.exp(0.2 * Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
  const ms = (x: number) => Math.round(x * 1000) / 1000;
  let seq = 0;
  for (let t = START_MS; t < END_MS; t += 1000) {
    const path = t >= SHIFT_MS ? 38 : 18;
    out.push({
      seq: seq++,
      t,
      method: "xhr",
      target: "B",
      outcome: "ok",
      ms: ms((path + 3) * g()),
      serverMs: ms(0.2 * g()),
    });
    out.push({ seq: seq++, t: t + 40, method: "ping", target: "B", outcome: "ok", ms: ms(path * g()) });
  }
  return out;
}

beforeAll(async () => {
  peerB = await startServerProcess(["--name", "B", "--no-ping"]);
  server = await startServerProcess(["--name", "A", "--no-ping", "--no-rate-limit", "--peer", `B=${peerB.url}`]);
  const all = samples();
  for (let i = 0; i < all.length; i += 1000) {
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        clientId: "changes-e2e-client",
        sessionId: "changes-e2e-s",
        samples: all.slice(i, i + 1000),
      }),
    });
    expect(res.status, await res.text()).toBe(200);
  }
  browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await peerB?.stop();
});

const listed = (page: Page) => page.locator("#changes-list li.change");

describe("changes on the histogram page", () => {
  it("lists the jump, marks it on its charts, and compares after against before", { timeout: 60_000 }, async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
    await page.goto(`${server.url}/histogram?range=custom&from=${START_MS - MINUTE_MS}&to=${END_MS}`);
    await page.waitForFunction(() => document.querySelectorAll("#changes-list li.change").length >= 2, null, {
      timeout: 30_000,
    });
    expect(await listed(page).count()).toBe(2);
    const text = await page.locator("#changes-list").innerText();
    expect(text).toContain("XHR · B");
    expect(text).toContain("Ping · B");
    expect(await page.locator('#changes-list li[data-verdict="network"]').count()).toBe(2);
    expect(text).toMatch(/ping B rose by/);

    // One mark on each changed series' time chart, where the change is.
    await page.waitForSelector('figure.panel[data-series="xhr@B"] button.change-mark');
    for (const series of ["xhr@B", "ping@B"])
      expect(await page.locator(`figure.panel[data-series="${series}"] button.change-mark`).count(), series).toBe(1);
    expect(await page.locator('figure.panel[data-series="ping@A"] button.change-mark').count()).toBe(0);

    // Choosing the XHR change from the list: the compare panel, after against before.
    await page.locator("#changes-list li.change", { hasText: "XHR · B" }).locator("button").click();
    await page.waitForSelector("#compare-sentence", { timeout: 30_000 });
    expect(await page.locator("details#compare").getAttribute("open")).not.toBeNull();
    expect(await page.locator("#compare-caption").innerText()).toMatch(
      /^A: XHR · B after the change at .*, B: before it/,
    );
    const table = await page.locator("details#compare table.stats").innerText();
    expect(table).toMatch(/Median A − B \(95 % CI\)\s+\+/);
    expect(table).toMatch(/Mann–Whitney U/);
    const medianLine = table.split("\n").find((l) => l.startsWith("Median A − B"))!;
    // The path is 20 ms longer: the median difference and its interval sit near +20 ms.
    const [estimate] = [...medianLine.matchAll(/\+(\d+(?:\.\d+)?) ms/g)].map((m) => Number(m[1]));
    expect(estimate).toBeGreaterThan(15);
    expect(estimate).toBeLessThan(26);
    expect(await listed(page).filter({ hasText: "XHR · B" }).getAttribute("class")).toContain("chosen");

    // Choosing the ping change by its mark on the time chart.
    await page.locator('figure.panel[data-series="ping@B"] button.change-mark').click();
    await page.waitForFunction(() => document.querySelector("#compare-caption")?.textContent?.includes("Ping · B"));
    expect(await listed(page).filter({ hasText: "Ping · B" }).getAttribute("class")).toContain("chosen");

    await page.locator("#changes").scrollIntoViewIfNeeded();
    await page.screenshot({ path: artifactPath("changes.png"), fullPage: true });
    expect(errors).toEqual([]);
  });
});
