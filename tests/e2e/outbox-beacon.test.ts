// Closing the tab: samples measured since the last delivery ride a
// sendBeacon at pagehide, so the server has them without waiting for the
// next visit to deliver them from IndexedDB.
//
// Simulated: the network state that leaves the beacon as the only way out.
// Closing also hides the page, whose keepalive flush would deliver the same
// samples, and an ordinary POST already in flight could land them too; the
// test refuses keepalive requests and, before closing, holds back every
// other POST of samples. The beacon itself is the browser's own; what the
// page handed to it is copied to localStorage on the way (Playwright no longer
// sees requests of a page being closed), and the test checks that payload
// carries every sample the server did not yet have.
// @lane waiting: asserts what the beacon carried, not when.
import { describe, expect, it } from "vitest";
import { parseWith, sampleBatchSchema } from "../../shared/contract/index.js";
import { debugState, openProbePage, readSession, seqGaps, sleep } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";

let server: ServerProcess | undefined;
const browser = browserForFile(() => server?.stop());

describe("closing the probe tab", () => {
  it("beacons the samples not yet delivered (simulated: keepalive refused, other POSTs held back)", {
    timeout: 60_000,
  }, async () => {
    console.log(
      "simulated: keepalive fetches refused and ordinary sample POSTs held back before the close; the beacon is real",
    );
    server = await startServerProcess(["--no-ping"]);
    const page = await browser().context.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __testHoldPosts: boolean; __testPostsInFlight: number };
      w.__testHoldPosts = false;
      w.__testPostsInFlight = 0;
      const realFetch = window.fetch.bind(window);
      window.fetch = (input, init) => {
        if (init?.keepalive) return Promise.reject(new TypeError("keepalive refused by the test"));
        if (init?.method === "POST" && String(input).endsWith("/api/samples")) {
          if (w.__testHoldPosts) return new Promise<Response>(() => {}); // never sent, never settled
          w.__testPostsInFlight++;
          return realFetch(input, init).finally(() => w.__testPostsInFlight--);
        }
        return realFetch(input, init);
      };
      const realBeacon = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, data) => {
        const sent = realBeacon(url, data);
        const log = JSON.parse(localStorage.getItem("__testBeacons") ?? "[]") as unknown[];
        localStorage.setItem(
          "__testBeacons",
          JSON.stringify([...log, { url: String(url), sent, body: typeof data === "string" ? data : null }]),
        );
        return sent;
      };
    });
    const { sessionId } = await openProbePage(page, `${server.url}/`);
    await sleep(5000);

    // From here on only the beacon can deliver: wait for the POSTs already sent to land.
    await page.evaluate(() => void ((window as unknown as { __testHoldPosts: boolean }).__testHoldPosts = true));
    await page.waitForFunction(
      () => (window as unknown as { __testPostsInFlight: number }).__testPostsInFlight === 0,
      undefined,
      { timeout: 10_000 },
    );
    await page.waitForFunction(
      () => (window as unknown as { tailprobe: { pending: number } }).tailprobe.pending >= 3,
      undefined,
      { timeout: 10_000 },
    );
    const last = await debugState(page);
    const storedBefore = new Set(readSession(server.dbPath, sessionId).map((r) => r.seq));
    await page.close({ runBeforeUnload: true });

    const rows = await waitFor(
      () => {
        const r = readSession(server!.dbPath, sessionId);
        return r.length >= last.sent ? r : undefined;
      },
      10_000,
      `all ${last.sent} samples, the last ${last.pending} by beacon`,
    );
    expect(seqGaps(rows)).toEqual([]);

    // The beacon's own payload: this session, and every sample the server lacked when the page closed.
    const reader = await browser().context.newPage();
    await reader.goto(`${server.url}/api/config`);
    const beacons = JSON.parse((await reader.evaluate(() => localStorage.getItem("__testBeacons"))) ?? "[]") as {
      url: string;
      sent: boolean;
      body: string | null;
    }[];
    await reader.close();
    expect(
      beacons.map((b) => [new URL(b.url, server!.url).pathname, b.sent, typeof b.body]),
      "beacons: [path, queued, body type]",
    ).toEqual([["/api/samples", true, "string"]]);
    const parsed = parseWith(sampleBatchSchema, JSON.parse(beacons[0]!.body!));
    if (!parsed.ok) throw new Error(`the beacon's body is not a sample batch: ${parsed.error}`);
    const body = parsed.value;
    expect(body.sessionId).toBe(sessionId);
    const beaconed = new Set(body.samples.map((s) => s.seq));
    const lacking = rows.map((r) => r.seq).filter((seq) => !storedBefore.has(seq));
    expect(lacking.length).toBeGreaterThanOrEqual(3);
    expect(
      lacking.filter((seq) => !beaconed.has(seq)),
      "samples that reached the server without the beacon",
    ).toEqual([]);
    console.log(`beacon: ${body.samples.length} samples, ${lacking.length} of them new to the server`);
  });
});
