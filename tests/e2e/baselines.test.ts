// The seed's comparison in a real browser: Chromium probes A and B while each
// server measures ping, WebSocket ping frames and kernel TCP RTT towards it;
// B's baselines reach A's database through the page, and the histogram page
// shows every baseline beside the probes, "WebSocket B" right above "Ping B".
// @lane waiting: asserts counts, answers within the timeout and relations between series (kernel ping below a
// WebSocket ping frame), not latencies.
import { beforeAll, describe, expect, it } from "vitest";
import { TIMEOUT_MS_DEFAULT } from "../../server/cli/options.js";
import type { StatsResponse, StatsRow } from "../../shared/contract/index.js";
import { artifactPath } from "../../testkit/browser.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { startServerProcess, waitFor, type ServerProcess, waitForPeerName } from "../../testkit/server-process.js";

const PROBE_SECONDS = 15;
const BASELINES = ["ping", "wsping", "tcprtt"] as const;

let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  b = await startServerProcess(["--name", "B"]);
  a = await startServerProcess(["--name", "A", "--peer", b.url]);
  await waitForPeerName(a, "B");
});

const browser = browserForFile(async () => {
  await a?.stop();
  await b?.stop();
});

describe("baselines beside the probes, servers A and B", () => {
  it(`after ${PROBE_SECONDS} s both servers' ping, wsping and tcprtt are in A's stats and on the histogram page`, {
    timeout: 90_000,
  }, async () => {
    const page = await browser().context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const startMs = Date.now();
    await page.goto(`${a.url}/`);
    const clientId = await page.waitForFunction(
      () => (window as unknown as { tailprobe?: { clientId: string } }).tailprobe?.clientId,
      undefined,
      { timeout: 10_000 },
    );
    const id = (await clientId.jsonValue()) as string;
    await page.waitForTimeout(PROBE_SECONDS * 1000);

    const want = BASELINES.flatMap((m) => ["A", "B"].map((t) => [m, t] as const));
    const rows = await waitFor(
      async () => {
        const s = (await (
          await fetch(`${a.url}/api/stats?from=${startMs - 1000}&client=${publicIdOf(a.dbPath, id)}`)
        ).json()) as StatsResponse;
        const found = want.map(([m, t]) => s.rows.find((r) => r.method === m && r.target === t));
        return found.every((r) => r !== undefined && r.count >= PROBE_SECONDS - 5)
          ? { found: found as StatsRow[], all: s.rows }
          : undefined;
      },
      15_000,
      "ping, wsping and tcprtt rows for A and B",
    );

    for (const r of rows.found) {
      const label = `${r.method} ${r.target}`;
      // About one a second, from each server, reported once each.
      expect(r.count + r.failures, label).toBeLessThanOrEqual(PROBE_SECONDS + 8);
      expect(r.failures, label).toBeLessThanOrEqual(1);
      expect(r.min!, label).toBeGreaterThan(0);
      // An answer later than the timeout would be a timeout, not a latency.
      expect(r.max!, label).toBeLessThanOrEqual(TIMEOUT_MS_DEFAULT);
    }
    // Loopback ICMP is answered by the kernel, a ping frame by two event
    // loops: a relation between the series instead of a bound in ms.
    for (const t of ["A", "B"]) {
      const ping = rows.found.find((r) => r.method === "ping" && r.target === t)!;
      const wsping = rows.found.find((r) => r.method === "wsping" && r.target === t)!;
      expect(ping.min!, `ping ${t} min vs wsping ${t} p50`).toBeLessThanOrEqual(wsping.p50!);
    }
    for (const t of ["A", "B"]) {
      const minrtt = rows.all.find((r) => r.method === "tcpminrtt" && r.target === t);
      const rtt = rows.found.find((r) => r.method === "tcprtt" && r.target === t)!;
      expect(minrtt, `tcpminrtt ${t}`).toBeDefined();
      expect(minrtt!.p50!).toBeLessThanOrEqual(rtt.p50!);
    }
    expect(errors).toEqual([]);

    const hist = await browser().context.newPage();
    await hist.goto(`${a.url}/histogram?range=15m`);
    await hist.waitForSelector('#stats-rows tr[data-method="tcprtt"][data-target="B"]', { timeout: 15_000 });
    for (const [m, t] of [...want, ["tcpminrtt", "A"], ["tcpminrtt", "B"]]) {
      const row = hist.locator(`#stats-rows tr[data-method="${m}"][data-target="${t}"]`);
      await expect.poll(() => row.count(), { message: `${m} ${t} row` }).toBe(1);
      const cells = await row.locator("td").allInnerTexts();
      expect(Number(cells[2]!.replace(/[^\d]/g, "")), `${m} ${t} samples`).toBeGreaterThanOrEqual(PROBE_SECONDS - 5);
    }
    // The seed's grouping: per server, probes then baselines, so WebSocket B sits right above Ping B.
    const order = await hist
      .locator("#stats-rows tr")
      .evaluateAll((trs) =>
        trs.map((tr) => `${(tr as HTMLElement).dataset.method} ${(tr as HTMLElement).dataset.target}`),
      );
    expect(order.indexOf("ping B")).toBe(order.indexOf("ws B") + 1);
    expect(order.indexOf("ping A")).toBe(order.indexOf("ws A") + 1);
    expect(order.slice(order.indexOf("ping B"), order.indexOf("ping B") + 4)).toEqual([
      "ping B",
      "wsping B",
      "tcprtt B",
      "tcpminrtt B",
    ]);
    // Both servers can ping here, so there is nothing to warn about.
    expect(await hist.locator("#notices").isHidden()).toBe(true);
    await hist.screenshot({ path: artifactPath("baselines-histogram-page.png"), fullPage: true });
    await page.close();
    await hist.close();
  });

  it("a server that cannot ping says so on the histogram page", { timeout: 30_000 }, async () => {
    const c = await startServerProcess(["--name", "C", "--ping-command", "/nonexistent/ping"]);
    try {
      const hist = await browser().context.newPage();
      await hist.goto(`${c.url}/histogram`);
      const notice = hist.locator('#notices p[data-server="C"][data-baseline="ping"]');
      await notice.waitFor({ timeout: 10_000 });
      expect(await notice.innerText()).toMatch(
        /^C: ping unavailable: \/nonexistent\/ping not found: apt-get install iputils-ping/,
      );
      expect(await hist.locator("#notices").isVisible()).toBe(true);
      await hist.screenshot({ path: artifactPath("baselines-ping-unavailable.png") });
      await hist.close();
    } finally {
      await c.stop();
    }
  });
});
