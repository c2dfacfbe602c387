// A hidden tab keeps probing once a second, and its samples say they were
// measured hidden (visibleAtSend false, hiddenMs growing), so the histogram
// page can leave them out.
//
// How the tab is hidden: headless Chromium 156 reports every tab as visible
// (a second tab in front, a minimised window and a background target all
// leave visibilityState "visible", and it has no CDP command to override
// page visibility), so the test overrides document.visibilityState and fires
// visibilitychange, which is all the page observes. What it cannot show is
// Chrome's timer throttling of real background tabs; the clock lives in a
// dedicated worker precisely so that throttling does not reach it.
import { describe, expect, it } from "vitest";
import { FLAG, FLAG_KNOWN_SHIFT } from "../../server/store/schema.js";
import { accountTicks, debugState, openProbePage, readSession, sleep } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../helpers/server-process.js";

const INTERVAL_MS = 1000;
const HIDDEN_MS = 15_000;

let server: ServerProcess | undefined;
const browser = browserForFile(() => server?.stop());

const visibleAtSend = (flags: number): boolean | undefined =>
  (flags & (FLAG.visibleAtSend << FLAG_KNOWN_SHIFT)) === 0 ? undefined : (flags & FLAG.visibleAtSend) !== 0;

describe("a hidden tab", () => {
  it("keeps 1 Hz and records visibility and hidden time", { timeout: 90_000 }, async () => {
    server = await startServerProcess(["--no-ping"]);
    const page = await browser().context.newPage();
    const { sessionId } = await openProbePage(page, `${server.url}/`);
    await sleep(3000);

    const setHidden = (hidden: boolean) =>
      page.evaluate((h) => {
        Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (h ? "hidden" : "visible") });
        Object.defineProperty(document, "hidden", { configurable: true, get: () => h });
        document.dispatchEvent(new Event("visibilitychange"));
      }, hidden);
    await setHidden(true);
    const hiddenAt = Date.now();
    await sleep(HIDDEN_MS);
    await setHidden(false);
    const shownAt = Date.now();
    await sleep(4000);

    const mark = (await debugState(page)).sent;
    const rows = await waitFor(() => {
      const r = readSession(server!.dbPath, sessionId);
      return r.length >= mark ? r : undefined;
    }, 20_000, `${mark} samples in the database`);

    const fromT = Math.ceil((hiddenAt + 500) / INTERVAL_MS) * INTERVAL_MS;
    const toT = Math.floor((shownAt - 500) / INTERVAL_MS) * INTERVAL_MS;
    const hidden = rows.filter((r) => r.scheduledT! >= fromT && r.scheduledT! < toT);
    // samples = methods × ticks while hidden, every one ok: no throttling gap.
    const account = accountTicks(rows, INTERVAL_MS, fromT, toT);
    expect(account.problems, account.problems.slice(0, 10).join("\n")).toEqual([]);
    expect(account.ticks).toBeGreaterThanOrEqual(HIDDEN_MS / INTERVAL_MS - 2);
    for (const [method, acc] of Object.entries(account.perMethod)) expect(acc.ok, method).toBe(account.ticks);

    for (const method of ["xhr", "jsonp", "ws", "best2"]) {
      const mine = hidden.filter((r) => r.method === method).sort((a, b) => a.scheduledT! - b.scheduledT!);
      expect(mine.every((r) => visibleAtSend(r.flags) === false), `${method} visibleAtSend`).toBe(true);
      // hiddenMs grows with the time since the tab was hidden.
      for (const r of mine) expect(Math.abs(r.hiddenMs! - (r.t - hiddenAt))).toBeLessThan(1500);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.hiddenMs!).toBeGreaterThan(mine[i - 1]!.hiddenMs!);
    }
    // Before and after: visible, hiddenMs 0.
    const visible = rows.filter((r) => r.scheduledT !== null && (r.t < hiddenAt - 500 || r.scheduledT > shownAt + 1000));
    expect(visible.length).toBeGreaterThan(8);
    for (const r of visible) {
      expect(visibleAtSend(r.flags)).toBe(true);
      expect(r.hiddenMs).toBe(0);
    }
    console.log(`hidden: ${account.ticks} hidden ticks accounted`, account.perMethod);
    await page.close();
  });
});
