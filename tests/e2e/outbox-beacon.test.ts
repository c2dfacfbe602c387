// Closing the tab: samples measured since the last delivery ride a
// sendBeacon at pagehide, so the server has them without waiting for the
// next visit to deliver them from IndexedDB. Closing also hides the page,
// whose keepalive flush would deliver them too; the test refuses keepalive
// requests so that only the beacon can (without either, it fails).
import { describe, expect, it } from "vitest";
import { debugState, openProbePage, readSession, seqGaps, sleep } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../helpers/server-process.js";

let server: ServerProcess | undefined;
const browser = browserForFile(() => server?.stop());

describe("closing the probe tab", () => {
  it("beacons the samples not yet delivered", { timeout: 60_000 }, async () => {
    server = await startServerProcess(["--no-ping"]);
    const page = await browser().context.newPage();
    await page.addInitScript(() => {
      const realFetch = window.fetch.bind(window);
      window.fetch = (input, init) => (init?.keepalive ? Promise.reject(new TypeError("keepalive refused by the test")) : realFetch(input, init));
    });
    const { sessionId } = await openProbePage(page, `${server.url}/`);
    await sleep(5000);
    // Close right after a sample settles, while the outbox still holds it.
    await page.waitForFunction(() => (window as unknown as { tailprobe: { pending: number } }).tailprobe.pending > 0, undefined, { timeout: 10_000 });
    const last = await debugState(page);
    expect(last.pending).toBeGreaterThan(0);
    await page.close({ runBeforeUnload: true });

    const rows = await waitFor(() => {
      const r = readSession(server!.dbPath, sessionId);
      return r.length >= last.sent ? r : undefined;
    }, 10_000, `all ${last.sent} samples, the last ${last.pending} by beacon`);
    expect(seqGaps(rows)).toEqual([]);
  });
});
