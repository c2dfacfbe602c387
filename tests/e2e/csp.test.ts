// The pages under their Content-Security-Policy in Chromium: everything the
// probe page does (XHR, JSONP and WebSockets to A and to peer B, the clock
// worker) and the histogram page still work with no violation, an injected
// inline script is refused, and a hostile label is shown as text.
// @lane waiting: asserts no policy violation and a refused injection.
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

  it("connect-src and worker-src: only A and its peer B are reached, only the page's own scripts run as workers", {
    timeout: 60_000,
  }, async () => {
    // A third tailprobe server, answering anyone (CORS *), that is no peer of A: the policy alone must keep the page from it.
    // On a host of its own (127.0.0.2): the policy allows any port of a peer's host, where the peer's load paths are.
    const c = await startServerProcess(["--name", "C", "--no-ping", "--host", "127.0.0.2"]);
    try {
      expect((await fetch(`${c.url}/echo`)).status).toBe(200);
      const res = await fetch(`${a.url}/`);
      const directives = new Map(
        res.headers
          .get("content-security-policy")!
          .split("; ")
          .map((d) => [d.split(" ")[0]!, d.split(" ").slice(1)] as const),
      );
      await res.text();
      const [aHost, bOrigin] = [new URL(a.url).host, new URL(b.url).origin];
      // A's own two load ports by number (from its /api/config), B's host at any port (its load ports are B's to choose).
      const aConfig = (await (await fetch(`${a.url}/api/config`)).json()) as {
        servers: { stress?: { downPort: number; upPort: number } }[];
      };
      const aLoad = aConfig.servers[0]!.stress!;
      const aHostName = new URL(a.url).hostname;
      expect(directives.get("connect-src")!.sort()).toEqual(
        [
          "'self'",
          `ws://${aHost}`,
          bOrigin,
          bOrigin.replace(/^http/, "ws"),
          `http://${aHostName}:${aLoad.downPort}`,
          `http://${aHostName}:${aLoad.upPort}`,
          `http://${new URL(b.url).hostname}:*`,
        ].sort(),
      );
      expect(directives.get("worker-src")).toEqual(["'self'"]);

      const page = await browser().context.newPage();
      const violations = await watchViolations(page);
      await page.goto(`${a.url}/`);
      await page.waitForFunction(() => (window as unknown as { tailprobe?: object }).tailprobe !== undefined);
      const outcome = await page.evaluate(
        async ({ b, c }) => {
          const tryFetch = (url: string) =>
            fetch(url).then(
              (r) => `status ${r.status}`,
              () => "refused",
            );
          const trySocket = (url: string) =>
            new Promise<string>((resolve) => {
              try {
                const ws = new WebSocket(url);
                ws.onopen = () => {
                  ws.close();
                  resolve("open");
                };
                ws.onerror = () => resolve("refused");
              } catch {
                resolve("refused");
              }
            });
          const tryWorker = (url: string) =>
            new Promise<string>((resolve) => {
              try {
                const w = new Worker(url);
                w.onmessage = () => {
                  w.terminate();
                  resolve("ran");
                };
                w.onerror = () => resolve("refused");
                setTimeout(() => resolve("silent"), 2000);
              } catch {
                resolve("refused");
              }
            });
          return {
            fetchPeer: await tryFetch(`${b}/echo`),
            fetchOther: await tryFetch(`${c}/echo`),
            socketPeer: await trySocket(`${b.replace(/^http/, "ws")}/ws`),
            socketOther: await trySocket(`${c.replace(/^http/, "ws")}/ws`),
            workerBlob: await tryWorker(URL.createObjectURL(new Blob(["postMessage(1)"], { type: "text/javascript" }))),
            workerData: await tryWorker("data:text/javascript,postMessage(1)"),
          };
        },
        { b: b.url, c: c.url },
      );
      expect(outcome).toEqual({
        fetchPeer: "status 200",
        fetchOther: "refused",
        socketPeer: "open",
        socketOther: "refused",
        workerBlob: "refused",
        workerData: "refused",
      });
      const seen = await violations();
      expect(seen.filter((v) => v.startsWith("connect-src")).length).toBeGreaterThanOrEqual(2);
      expect(seen.some((v) => v.startsWith("connect-src") && v.includes(new URL(c.url).host))).toBe(true);
      expect(seen.filter((v) => v.startsWith("worker-src")).length).toBeGreaterThanOrEqual(1);
      // No violation event blocked the peer (the console's messages quote the whole policy, B included).
      expect(seen.filter((v) => /^[a-z]+-src /.test(v) && v.includes(new URL(b.url).host))).toEqual([]);
      await page.close();
    } finally {
      await c.stop();
    }
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
