// Without a usable IndexedDB (some private modes, storage disabled) the page
// keeps probing and reporting from memory, and says plainly that a reload or
// a closed tab would lose what is not yet reported.
//
// Simulated: Chromium here has a working IndexedDB, so the test replaces
// window.indexedDB with one whose open() throws, as disabled storage does.
// @lane waiting: asserts the memory fallback and what the page says.
import { describe, expect, it } from "vitest";
import { debugState, openProbePage, readSession } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";

let server: ServerProcess | undefined;
const browser = browserForFile(() => server?.stop());

describe("outbox without IndexedDB", () => {
  it("falls back to memory, shows it, and still delivers (simulated: indexedDB.open throws)", {
    timeout: 60_000,
  }, async () => {
    console.log("simulated: window.indexedDB replaced by one whose open() throws SecurityError");
    server = await startServerProcess(["--no-ping"]);
    const page = await browser().context.newPage();
    await page.addInitScript(() => {
      const broken = {
        open() {
          throw new DOMException("storage is disabled", "SecurityError");
        },
      };
      Object.defineProperty(window, "indexedDB", { configurable: true, get: () => broken });
    });
    const { sessionId } = await openProbePage(page, `${server.url}/`);
    const warning = page.locator("#storage-warning");
    await expect.poll(() => warning.isVisible()).toBe(true);
    expect(await warning.innerText()).toMatch(/memory only.*storage is disabled/s);
    expect((await debugState(page)).outbox.storage).toBe("memory");

    await waitFor(
      () => (readSession(server!.dbPath, sessionId).length >= 12 ? true : undefined),
      20_000,
      "samples delivered from memory",
    );
    expect((await debugState(page)).outbox.rejected).toBe(0);
    await page.close();
  });
});
