// One tab of three made slow, the others fine: the incident names that
// client, not the server. Three clients on A (two tabs in one browser, each
// with a client id of its own, one tab in a browser of its own), probing A
// and B, where A names its peer B by `localhost`. The lone browser resolves
// `localhost` to 127.0.0.2, where Toxiproxy listens on B's port: its path to
// B (HTTP and WebSocket alike) goes through the proxy, the others' does not,
// and no CPU is burnt to slow it (a busy loop would slow every tab on two
// cores). Then the proxy adds 150 ms to everything B sends that tab.
// The other way to make a tab slow, its ticks late (a busy main thread), is
// judged the same way: tests/unit/health-monitor.test.ts.
import { afterAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { Incident, IncidentsResponse } from "../../shared/contract/index.js";
import { launchBrowser, type LaunchedBrowser } from "../../testkit/browser.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";
import { startToxiproxy, type Toxiproxy } from "../../testkit/toxiproxy.js";
import { browserForFile } from "../helpers/e2e-fixture.js";

/** Before the delay: each client learns its usual latencies (ms). */
const WARM_MS = 20_000;
/** What the proxy adds to everything B sends the lone tab (ms). */
const DELAY_MS = 150;
/** How long the incident may take to be listed (ms): the slow probes come with reports, every 5 s. */
const LISTED_MS_MAX = 30_000;
/** The lone browser's loopback address for `localhost`: the proxy listens there on B's port. */
const SLOW_PATH_ADDRESS = "127.0.0.2";

const servers: ServerProcess[] = [];
let lone: LaunchedBrowser | undefined;
let toxi: Toxiproxy | undefined;
const browser = browserForFile(async () => {
  await lone?.close();
  for (const s of servers) await s.stop();
});
afterAll(async () => {
  await toxi?.stop();
});

async function probePage(b: LaunchedBrowser, url: string, clientId?: string): Promise<Page> {
  const page = await b.context.newPage();
  // Tabs of one browser share localStorage: each is given its own client id before the page reads it.
  if (clientId !== undefined)
    await page.addInitScript((id) => localStorage.setItem("tailprobe.clientId", id), clientId);
  await page.goto(`${url}/`);
  await page.waitForFunction(
    () => ((window as unknown as { tailprobe?: { ticks: number } }).tailprobe?.ticks ?? 0) > 1,
  );
  return page;
}

const clientIdOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { tailprobe: { clientId: string } }).tailprobe.clientId);

describe("one slow tab of three", () => {
  it("the incident's verdict names that client, not the server", { timeout: 180_000 }, async () => {
    const b = await startServerProcess(["--name", "B", "--no-ping"]);
    servers.push(b);
    toxi = await startToxiproxy();
    await toxi.proxy("slow_tab_b", `127.0.0.1:${b.port}`, `${SLOW_PATH_ADDRESS}:${b.port}`);
    const a = await startServerProcess(["--name", "A", "--no-ping", "--peer", `B=http://localhost:${b.port}`]);
    servers.push(a);
    const fine = [
      await probePage(browser(), a.url, "health_e2e_client_one"),
      await probePage(browser(), a.url, "health_e2e_client_two"),
    ];
    lone = await launchBrowser({ args: [`--host-resolver-rules=MAP localhost ${SLOW_PATH_ADDRESS}`] });
    const slow = await probePage(lone, a.url);
    await slow.waitForTimeout(WARM_MS);
    const ids = await Promise.all([...fine, slow].map(clientIdOf));
    expect(new Set(ids).size).toBe(3);
    const slowId = publicIdOf(a.dbPath, ids[2]!);

    const incidents = async (): Promise<Incident[]> =>
      ((await (await fetch(`${a.url}/api/incidents?from=${Date.now() - 600_000}`)).json()) as IncidentsResponse)
        .incidents;
    // Nothing before the delay.
    expect(await incidents()).toEqual([]);
    const slowFromMs = Date.now();
    await toxi.addLatency("slow_tab_b", "delay", DELAY_MS, "downstream");
    const aboutB = await waitFor(
      async () => (await incidents()).find((i) => i.target === "B"),
      LISTED_MS_MAX,
      "an incident about B",
    );
    console.log(`slow tab: listed ${Date.now() - slowFromMs} ms after the delay began: ${aboutB.summary}`);

    expect(aboutB).toMatchObject({ kind: "degraded", verdict: "client", clients: [slowId] });
    expect(aboutB.start).toBeGreaterThanOrEqual(slowFromMs - 1000);
    expect(aboutB.summary).toMatch(
      new RegExp(`^B degraded: for client ${slowId}: slow \\(median \\d+ ms against a usual [\\d.]+ ms\\)`),
    );
    expect(aboutB.summary).toContain("while 2 other clients and A's own probe are fine");
    // Whatever else opened, none blames a server or names a fine client.
    for (const i of await incidents()) {
      expect(i.verdict, i.summary).toBe("client");
      expect(i.clients, i.summary).toEqual([slowId]);
    }
    for (const p of [...fine, slow]) await p.close();
  });
});
