// The pages under their Content-Security-Policy in Chromium: everything the
// probe page does (XHR, JSONP and WebSockets to A and to peer B, the clock
// worker) and the histogram page still work with no violation, an injected
// inline script is refused, and a hostile label is shown as text.
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { StatsResponse } from "../../shared/contract/index.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess, waitForPeerName } from "../../testkit/server-process.js";

let a: ServerProcess;
let b: ServerProcess;
const HOSTILE_LABEL = `<img src=x onerror="window.__pwned=1">`;

beforeAll(async () => {
  b = await startServerProcess(["--name", "B", "--no-ping"]);
  a = await startServerProcess(["--name", "A", "--no-ping", "--peer", b.url]);
  await waitForPeerName(a, "B");
});

const browser = browserForFile(async () => {
  await a?.stop();
  await b?.stop();
});

/** Records every CSP violation the page reports, from before its first script runs. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  const consoleErrors: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) consoleErrors.push(m.text());
  });
  return async () => [
    ...((await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)) ?? []),
    ...consoleErrors,
  ];
}

describe("Content-Security-Policy", () => {
  it("the probe page probes A and peer B by every method with no violation; inline script is refused", {
    timeout: 60_000,
  }, async () => {
    const res = await fetch(`${a.url}/`);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toMatch(/script-src 'self' http:\/\/127\.0\.0\.1:\d+/);
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline/);
    await res.text();

    const page = await browser().context.newPage();
    const violations = await watchViolations(page);
    const startMs = Date.now();
    // The page takes its label from ?label= (and keeps it).
    await page.goto(`${a.url}/?label=${encodeURIComponent(HOSTILE_LABEL)}`);
    const rows = await waitFor(
      async () => {
        const s = (await (await fetch(`${a.url}/api/stats?from=${startMs - 1000}`)).json()) as StatsResponse;
        const want = ["xhr A", "jsonp A", "ws A", "xhr B", "jsonp B", "ws B", "best2 A+B"];
        const have = new Set(s.rows.filter((r) => r.count > 0).map((r) => `${r.method} ${r.target}`));
        return want.every((w) => have.has(w)) ? s.rows : undefined;
      },
      30_000,
      "ok samples of every method towards A and B",
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(await violations()).toEqual([]);

    const ran = await page.evaluate(async () => {
      const s = document.createElement("script");
      s.textContent = "window.__inline = 1";
      document.body.append(s);
      await new Promise((r) => setTimeout(r, 100));
      return (window as unknown as { __inline?: number }).__inline === 1;
    });
    expect(ran).toBe(false);
    expect((await violations()).some((v) => v.startsWith("script-src"))).toBe(true);
    await page.close();
  });

  it("the histogram page renders with no violation, and a hostile label stays text", { timeout: 60_000 }, async () => {
    const page = await browser().context.newPage();
    const violations = await watchViolations(page);
    await page.goto(`${a.url}/histogram?range=15m`);
    await page.waitForSelector('#stats-rows tr[data-method="xhr"]', { timeout: 20_000 });
    const options = await page.locator("#client option").allTextContents();
    expect(options.some((o) => o.includes(HOSTILE_LABEL))).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("#client img").count()).toBe(0);
    expect(await violations()).toEqual([]);
    await page.close();
  });
});
