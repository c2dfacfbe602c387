// A planted client stall, server stall and network spike, each found on the
// histogram page by clicking its time bucket and named correctly by the
// "why?" panel:
//   client  — the test blocks the probe page's main thread for 800 ms right
//             after an XHR probe leaves, so its answer waits and the next ticks fire late;
//   server  — B's test-only hook (TAILPROBE_TEST_HOOKS=1) holds its echoes 600 ms in the handler;
//   network — Toxiproxy, in front of B, adds 400 ms to B's path; B's WebSocket ping frames see it.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { chooseBucketMs } from "../../shared/contract/index.js";
import { TIMESERIES_BUCKETS_TARGET } from "../../client/src/histogram/transforms.js";
import { artifactPath } from "../../testkit/browser.js";
import { sleep } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";
import { startToxiproxy, type Toxiproxy } from "../../testkit/toxiproxy.js";

const WARMUP_MS = 8000;
/** Between plants: longer than a time bucket, so each bucket holds one cause. */
const GAP_MS = 6000;
const STALL_MS = 800;
/** Large against a busy machine's late ticks, which the client rule weighs against half the excess. */
const SERVER_DELAY_MS = 600;
const SPIKE_MS = 400;

let a: ServerProcess | undefined;
let b: ServerProcess | undefined;
let proxy: Toxiproxy | undefined;
const browser = browserForFile(async () => {
  await a?.stop();
  await proxy?.stop();
  await b?.stop();
});

/** When each cause was planted (epoch ms). */
const planted = { client: 0, server: 0, network: 0 };
let rangeFromMs = 0;

beforeAll(async () => {
  b = await startServerProcess(["--name", "B", "--no-ping"], { env: { TAILPROBE_TEST_HOOKS: "1" } });
  proxy = await startToxiproxy();
  const bPath = await proxy.proxy("b-path", `127.0.0.1:${b.port}`);
  a = await startServerProcess(["--name", "A", "--no-ping", "--peer", `B=http://${bPath}`]);
  rangeFromMs = Date.now() - 5000;
  const page = await browser().context.newPage();
  await page.goto(`${a.url}/`);
  await sleep(WARMUP_MS);

  // Client: block the main thread for 800 ms right after the next XHR probe to A leaves
  // (XHR: only the XHR probes use it; a WebSocket send could be best-of-two's leg).
  await page.evaluate((stallMs) => {
    const open = XMLHttpRequest.prototype.open;
    const send = XMLHttpRequest.prototype.send;
    const w = window as unknown as { __stalledAt?: number };
    const urls = new WeakMap<XMLHttpRequest, string>();
    XMLHttpRequest.prototype.open = function (
      this: XMLHttpRequest,
      method: string,
      url: string | URL,
      ...rest: unknown[]
    ) {
      urls.set(this, String(url));
      return (open as (...a: unknown[]) => void).call(this, method, url, ...rest);
    } as typeof open;
    XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
      send.call(this, body);
      if (w.__stalledAt === undefined && (urls.get(this) ?? "").startsWith(`${location.origin}/echo`)) {
        w.__stalledAt = Date.now();
        const end = performance.now() + stallMs;
        while (performance.now() < end) {
          // busy: the page's main thread is blocked, as a long task would block it
        }
      }
    };
  }, STALL_MS);
  planted.client = await page
    .waitForFunction(() => (window as unknown as { __stalledAt?: number }).__stalledAt)
    .then((h) => h.jsonValue() as Promise<number>);
  await sleep(GAP_MS);

  // Server: B holds every echo 600 ms inside its handler for 2 s.
  planted.server = Date.now();
  const armed = await fetch(`${b.url}/api/test/stall`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ delayMs: SERVER_DELAY_MS, durationMs: 2000 }),
  });
  expect(armed.status).toBe(200);
  await sleep(GAP_MS);

  // Network: 400 ms more on B's path for 2.5 s.
  planted.network = Date.now();
  await proxy.addLatency("b-path", "spike", SPIKE_MS, "downstream");
  await sleep(2500);
  await proxy.removeToxic("b-path", "spike");
  await sleep(GAP_MS);
  await page.close();
}, 120_000);

/** Opens the histogram page on the test's range and waits for its first refresh. */
async function histogramPage(): Promise<Page> {
  const page = await browser().context.newPage();
  await page.goto(`${a!.url}/histogram?range=custom&from=${rangeFromMs}&to=${Date.now() + 2000}`);
  await page.waitForFunction(
    () => {
      const t = (window as unknown as { tailprobeHistogram?: { idle: boolean; completed: number } }).tailprobeHistogram;
      return t?.idle && t.completed > 0;
    },
    undefined,
    { timeout: 20_000 },
  );
  return page;
}

/** Clicks the middle of the time bucket holding `atMs` on a series' panel, and reads the verdict. */
async function askWhy(
  page: Page,
  series: string,
  atMs: number,
  shot: string,
): Promise<{ cause: string; text: string }> {
  type Window = { fromMs: number; toMs: number };
  const { range, axis } = await page.evaluate(() => {
    const t = (window as unknown as { tailprobeHistogram: { range: Window; axis: Window } }).tailprobeHistogram;
    return { range: t.range, axis: t.axis };
  });
  const bucketMs = chooseBucketMs(range.toMs - range.fromMs, TIMESERIES_BUCKETS_TARGET);
  const middle = Math.floor(atMs / bucketMs) * bucketMs + bucketMs / 2;
  const over = page.locator(`figure.panel[data-series="${series}"] .u-over`);
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  const x = ((middle - axis.fromMs) / (axis.toMs - axis.fromMs)) * box.width;
  await over.click({ position: { x, y: box.height / 2 } });
  const verdict = page.locator("#attribution-verdict");
  await verdict.waitFor({ timeout: 15_000 });
  await page.screenshot({ path: artifactPath(shot) });
  const result = { cause: (await verdict.getAttribute("data-cause")) ?? "", text: await verdict.innerText() };
  await page.locator("#attribution button.close").click();
  return result;
}

describe("the page names the cause of a planted spike", () => {
  it("stored the planted samples", async () => {
    await waitFor(
      async () => {
        const res = await fetch(`${a!.url}/api/stats?from=${planted.network}&method=xhr&target=B`);
        const s = (await res.json()) as { rows: { count: number }[] };
        return (s.rows[0]?.count ?? 0) > 3 ? true : undefined;
      },
      15_000,
      "the spike's samples to be stored",
    );
  });

  it("client: a blocked main thread", async () => {
    const page = await histogramPage();
    const v = await askWhy(page, "xhr@A", planted.client, "attribution-client.png");
    expect(v.cause).toBe("client");
    expect(v.text).toMatch(/^client: .*fired \d+ ms late/);
    await page.close();
  }, 60_000);

  it("server: B's own handler", async () => {
    const page = await histogramPage();
    // One second in, the bucket lies inside the stall, whose XHR to B (one a second) was held.
    const v = await askWhy(page, "xhr@B", planted.server + 1000, "attribution-server.png");
    expect(v.cause).toBe("server");
    expect(v.text).toMatch(/^server B: \d+ ms in its own handler$/);
    await page.close();
  }, 60_000);

  it("network: B's path", async () => {
    const page = await histogramPage();
    const v = await askWhy(page, "xhr@B", planted.network + 1000, "attribution-network.png");

    expect(v.cause).toBe("network");
    expect(v.text).toMatch(/^network: .* to this client spiked to \d+ ms in the same second$/);
    await page.close();
  }, 60_000);
});

describe("the other questions, one click away", () => {
  it("the tail chart's slowest point opens the same panel", async () => {
    const page = await histogramPage();
    const over = page.locator("#cdf-chart .u-over");
    const box = (await over.boundingBox())!;
    // The far right of the tail: the slowest latencies measured.
    await over.click({ position: { x: box.width - 2, y: box.height - 4 } });
    const verdict = page.locator("#attribution-verdict");
    await verdict.waitFor({ timeout: 15_000 });
    expect(await page.locator("#attribution .meta").first().innerText()).toMatch(/^from the tail chart at [\d.]+ ms$/);
    expect(await verdict.getAttribute("data-cause")).toMatch(/^(client|server|network|http|unexplained|normal)$/);
    await page.close();
  }, 60_000);

  it("compare, periodicity and fan-out answer in plain words", async () => {
    const page = await histogramPage();
    await page.locator("#compare > summary").click();
    await page.locator("#compare select[name=a]").selectOption("ws@A");
    await page.locator("#compare select[name=b]").selectOption("xhr@A");
    await page.locator("#compare button").click();
    const sentence = page.locator("#compare-sentence");
    await sentence.waitFor({ timeout: 15_000 }).catch(async (e: unknown) => {
      throw new Error(`compare panel says: ${await page.locator("#compare").innerText()}`, { cause: e });
    });
    expect(await sentence.innerText()).toMatch(/^WebSocket · A (is (faster|slower) than|and) XHR · A|^WebSocket to A /);
    await page.locator("#compare").screenshot({ path: artifactPath("compare.png") });

    await page.locator("#fanout > summary").click();
    await page.locator("#fanout select").selectOption("xhr");
    await page.locator("#fanout button").click();
    await page
      .locator("#fanout p.sentence")
      .waitFor({ timeout: 15_000 })
      .catch(async (e: unknown) => {
        throw new Error(`fan-out panel says: ${await page.locator("#fanout").innerText()}`, { cause: e });
      });
    expect(await page.locator("#fanout p.sentence").innerText()).toMatch(
      /^With 10 requests per page view, [\d.]+ % of views see at least one as slow as the p99 of xhr to A alone \(.+\) or slower; best of two: [\d.]+ %, hedged after .+: [\d.]+ %, the page's measured best-of-two probe: [\d.]+ %\.$/,
    );
    // Header; A alone, B alone, best of two, hedged, and the page's own best-of-two probe to A+B.
    expect(await page.locator("#fanout tr").count()).toBe(6);
    expect(await page.locator("#fanout tr").nth(5).innerText()).toMatch(/^measured best-of-two probe A\+B \(\d+ races/);
    await page.locator("#fanout").screenshot({ path: artifactPath("fanout.png") });
    // best2: the two legs of the page's own races, whose best of two is the race.
    await page.locator("#fanout select").selectOption("best2");
    await page.locator("#fanout button").click();
    await page
      .locator("#fanout p.meta")
      .filter({ hasText: /races where both legs answered/ })
      .waitFor({ timeout: 15_000 });
    expect(await page.locator("#fanout tr").nth(1).innerText()).toMatch(/^WebSocket leg to A alone/);

    await page.locator("#periodicity > summary").click();
    await page.locator("#periodicity h3").waitFor({ timeout: 15_000 });
    expect(await page.locator("#periodicity").innerText()).toMatch(/repeats every|No series repeats/);
    await page.close();
  }, 60_000);
});
