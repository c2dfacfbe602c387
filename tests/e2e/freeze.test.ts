// A frozen page must leave an honest gap: the ticks it missed are stored as
// `skipped` with reason `frozen`, and probing resumes at 1 Hz afterwards.
//
// How the page is frozen: first with CDP Page.setWebLifecycleState "frozen",
// which is what the issue asks for. Headless Chromium 156 accepts that command
// but does not freeze the page (its timers, worker and probes keep running),
// so when the test sees the page still ticking it falls back to stopping the
// renderer process with SIGSTOP and resuming it with SIGCONT: the same thing
// from the page's point of view (nothing runs, then everything is late), and
// the path a real freeze without a `resume` event takes.
import { afterAll, describe, expect, it } from "vitest";
import { accountTicks, debugState, firstDueT, openProbePage, readSession, rendererPids, sleep } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../helpers/server-process.js";

const INTERVAL_MS = 1000;
const FROZEN_MS = 20_000;

let server: ServerProcess | undefined;
let stopped: number[] = [];
const browser = browserForFile(() => server?.stop());

// Registered after the browser's, so it runs before it closes (vitest runs
// afterAll hooks last-registered first): a stopped renderer would hang the close.
afterAll(() => {
  for (const pid of stopped) {
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // already gone
    }
  }
});

/** Resolves with the value, or undefined when the page does not answer in time (it is frozen). */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
}

describe("freezing the page", () => {
  it("records the missed ticks as skipped (frozen) and resumes at 1 Hz", { timeout: 120_000 }, async () => {
    server = await startServerProcess(["--no-ping"]);
    const page = await browser().context.newPage();
    const { sessionId } = await openProbePage(page, `${server.url}/`);
    await sleep(4000);

    const cdp = await browser().context.newCDPSession(page);
    const frozenAt = Date.now();
    await cdp.send("Page.setWebLifecycleState", { state: "frozen" });
    const ticksAtFreeze = (await within(debugState(page), 1000))?.ticks;
    await sleep(2500);
    const ticksLater = (await within(debugState(page), 1000))?.ticks;
    const cdpFroze = ticksLater === undefined || ticksLater === ticksAtFreeze;
    let resumedAt: number;
    if (cdpFroze) {
      await sleep(FROZEN_MS - (Date.now() - frozenAt));
      await cdp.send("Page.setWebLifecycleState", { state: "active" });
      resumedAt = Date.now();
    } else {
      await cdp.send("Page.setWebLifecycleState", { state: "active" });
      await sleep(2000);
      stopped = rendererPids();
      expect(stopped.length, "renderer processes found").toBeGreaterThan(0);
      for (const pid of stopped) process.kill(pid, "SIGSTOP");
      const stoppedAt = Date.now();
      await sleep(FROZEN_MS);
      for (const pid of stopped) process.kill(pid, "SIGCONT");
      stopped = [];
      resumedAt = Date.now();
      console.log(`freeze: CDP did not freeze the page; SIGSTOP for ${resumedAt - stoppedAt} ms instead`);
    }
    const freezeFrom = resumedAt - FROZEN_MS;
    await sleep(8000);

    const mark = (await debugState(page)).sent;
    const rows = await waitFor(() => {
      const r = readSession(server!.dbPath, sessionId);
      return r.length >= mark ? r : undefined;
    }, 20_000, `${mark} samples in the database`);

    for (const method of ["xhr", "jsonp", "ws", "best2"]) {
      const mine = rows.filter((r) => r.method === method);
      const skipped = mine.filter((r) => r.outcome === "skipped");
      // One skipped record per missed tick, all inside the freeze, all "frozen".
      expect(skipped.length, `${method} skipped`).toBeGreaterThanOrEqual(FROZEN_MS / INTERVAL_MS - 3);
      expect(skipped.length, `${method} skipped`).toBeLessThanOrEqual(FROZEN_MS / INTERVAL_MS + 1);
      expect(skipped.every((r) => r.reason === "frozen"), `${method} reasons ${skipped.map((r) => r.reason).join()}`).toBe(true);
      expect(skipped.every((r) => r.scheduledT! >= freezeFrom - 1500 && r.scheduledT! <= resumedAt)).toBe(true);
      // Afterwards: ok again, one tick a second on the fixed grid.
      const after = mine.filter((r) => r.scheduledT! > resumedAt + 1000 && r.scheduledT! < resumedAt + 6000);
      expect(after.length, `${method} ticks after resume`).toBeGreaterThanOrEqual(4);
      expect(after.every((r) => r.outcome === "ok"), `${method} after resume: ${after.map((r) => r.outcome).join()}`).toBe(true);
      const due = after.map((r) => r.scheduledT!).sort((a, b) => a - b);
      for (let i = 1; i < due.length; i++) expect(due[i]! - due[i - 1]!).toBe(INTERVAL_MS);
    }

    // Every tick from the first to a settled one has exactly one record per method.
    const fromT = Math.ceil(firstDueT(rows) / INTERVAL_MS) * INTERVAL_MS;
    const toT = Math.floor((resumedAt + 5000) / INTERVAL_MS) * INTERVAL_MS;
    const account = accountTicks(rows, INTERVAL_MS, fromT, toT);
    expect(account.problems, account.problems.slice(0, 10).join("\n")).toEqual([]);
    console.log(`freeze: ${account.ticks} ticks accounted`, account.perMethod);
    await page.close();
  });
});
