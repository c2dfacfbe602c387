// The driver seam (testkit/engines.ts) itself, in the lane's engine: a page
// loads from a real server on loopback, expressions and functions come back
// as JSON, errors raised in the page are reported, a screenshot is a PNG,
// hiding the page really hides it (Firefox: a tab in front; WebKit: the
// window minimised). Deadlines on calls that never answer:
// tests/unit/engine-deadline.test.ts.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifactPath } from "../../testkit/browser.js";
import { engineForFile, laneEngine } from "../helpers/engine-lane.js";

const PAGE = `<!doctype html><title>engine seam</title><p id="p">hello</p>`;
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const browser = engineForFile();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`driver seam in ${laneEngine()}`, () => {
  it("loads a page, evaluates, reports the page's errors and takes a screenshot", async () => {
    const page = await browser().newPage();
    await page.goto(url);
    expect(await page.evaluate<string>("document.getElementById('p').textContent")).toBe("hello");
    expect(await page.evaluate((n: number) => ({ twice: n * 2, title: document.title }), 21)).toEqual({
      twice: 42,
      title: "engine seam",
    });
    expect(await page.evaluate<string>("new Promise((r) => setTimeout(() => r('later'), 20))")).toBe("later");
    await expect(page.evaluate("Promise.reject(new Error('refused here'))")).rejects.toThrow(/refused here/);

    expect(await page.errors()).toEqual([]);
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error("planted uncaught");
      }, 0);
      console.error("planted console error");
    });
    await sleep(300);
    const errors = await page.errors();
    expect(
      errors.some((e) => e.includes("planted uncaught")),
      errors.join("\n"),
    ).toBe(true);
    expect(
      errors.some((e) => e.includes("planted console error")),
      errors.join("\n"),
    ).toBe(true);

    const png = artifactPath(`engine-seam-${laneEngine()}.png`);
    fs.rmSync(png, { force: true });
    await page.screenshot(png);
    expect(fs.readFileSync(png).subarray(1, 4).toString()).toBe("PNG");
    await page.close();
  });

  it.skipIf(laneEngine() === "chromium")("hides the page as a user would, and shows it again", async () => {
    const page = await browser().newPage();
    await page.goto(url);
    await page.evaluate(() => {
      const w = window as unknown as { changes: string[] };
      w.changes = [];
      document.addEventListener("visibilitychange", () => w.changes.push(document.visibilityState));
    });
    expect(await page.evaluate<string>("document.visibilityState")).toBe("visible");
    await page.setHidden(true);
    await sleep(300);
    expect(await page.evaluate<string>("document.visibilityState")).toBe("hidden");
    await page.setHidden(false);
    await sleep(300);
    expect(await page.evaluate<string>("document.visibilityState")).toBe("visible");
    expect(await page.evaluate<string[]>("window.changes")).toEqual(["hidden", "visible"]);
    await page.close();
  });
});
