// The histogram page in Chromium on samples timed by a 1 ms clock (a page
// that was not cross-origin isolated in Firefox or WebKit): the note under the
// histogram names the series quantised coarser than its bins, the table's min and p10 carry the
// step, and baselines (measured by the servers) do not. Planted: the samples
// are synthetic, rounded to whole ms and posted with timerResolutionMs 1.
// @lane waiting: draws stored synthetic samples and asserts the page's text, not how fast.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifactPath, launchBrowser, type LaunchedBrowser } from "../../testkit/browser.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";
import { syntheticSamples } from "../../testkit/synthetic-latency.js";

const SECONDS = 300;
let server: ServerProcess;
let browser: LaunchedBrowser;

beforeAll(async () => {
  server = await startServerProcess(["--name", "A", "--no-ping", "--no-rate-limit"]);
  const startMs = Math.floor((Date.now() - (SECONDS + 20) * 1000) / 1000) * 1000;
  const samples = syntheticSamples({ startMs, seconds: SECONDS, spike: { fromMs: 0, toMs: 0 } })
    .filter((s) => s.target === "A")
    // A page's clock rounds what it times; ping is the server's and keeps its precision.
    .map((s) => (s.ms !== null && s.method !== "ping" ? { ...s, ms: Math.max(1, Math.round(s.ms)) } : s));
  for (let i = 0; i < samples.length; i += 1000) {
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        clientId: "quantised-client-01",
        sessionId: "quantised-session-01",
        timerResolutionMs: 1,
        engine: "gecko",
        samples: samples.slice(i, i + 1000),
      }),
    });
    expect(res.status).toBe(200);
  }
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("a range timed by a 1 ms clock", () => {
  it("says which series are quantised coarser than the bins, and the table carries the step", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/histogram?range=15m`);
    const note = page.locator("#quantisation-note");
    await expect.poll(() => note.innerText(), { timeout: 20_000 }).toMatch(/multiples of 1\.00 ms/);
    const text = await note.innerText();
    // The page draws 20 bins a decade: bins below 32.8 ms are narrower than 4 steps of 1 ms,
    // where every page-timed series has samples; ping, the server's, is not page-timed.
    expect(text).toBe(
      "XHR · A, JSONP · A, WebSocket · A: latencies are multiples of 1.00 ms (the page's clock step), which makes a comb of the bins below 32.8 ms; drawn spread over each step.",
    );
    const cells = async (method: string) =>
      page.locator(`#stats-rows tr[data-method="${method}"][data-target="A"] td`).allInnerTexts();
    const ws = await cells("ws");
    // Min and p10 (columns 5 and 6) of a ~12 ms series on a 1 ms clock.
    expect(ws[5]).toMatch(/^\d+\.\d+ ± 1\.00 ms$/);
    expect(ws[6]).toMatch(/^\d+\.\d+ ± 1\.00 ms$/);
    const ping = await cells("ping");
    expect(ping[5]).not.toContain("±");
    expect(ping[6]).not.toContain("±");
    await page.screenshot({ path: artifactPath("histogram-quantised.png"), fullPage: true });
    await page.close();
  });
});
