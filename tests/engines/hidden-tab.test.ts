// A hidden page keeps probing once a second in the lane's engine, and its
// samples say they were measured hidden (visibleAtSend false, hiddenMs
// growing). How it is hidden, for real: Firefox puts another tab in front of
// it, with the profile's background-tab preferences set back to a user's
// (testkit/engines/firefox.ts); WebKit minimises its window. The page's own
// 100 ms main-thread timer is recorded too and must have been throttled
// while hidden: the condition the worker clock is tested under was real.
// Chromium's version (a tab behind another over the DevTools protocol, with
// intensive throttling after a minute) is tests/e2e/hidden-tab.test.ts.
import { afterAll, describe, expect, it } from "vitest";
import { FLAG, FLAG_KNOWN_SHIFT } from "../../server/store/flags.js";
import { startServerProcess, type ServerProcess, waitFor } from "../../testkit/server-process.js";
import { accountTicks, readSession, sleep } from "../helpers/durability.js";
import { engineForFile, laneEngine } from "../helpers/engine-lane.js";

const INTERVAL_MS = 1000;
/** How long the page stays hidden (ms). */
const HIDDEN_MS = 30_000;
/** The end of the hidden time that is checked (ms): past the first seconds, when throttling may still be setting in. */
const LAST_MS = 20_000;
/** The page's main-thread timer period (ms): 200 wake-ups in LAST_MS if nothing throttles it. */
const MAIN_TIMER_MS = 100;
/** Most main-thread wake-ups allowed in LAST_MS hidden: both engines clamp a hidden page's timers to about 1 s. */
const MAIN_WAKEUPS_MAX = 40;
/** Ticks per method in LAST_MS that may be skipped on a busy machine (a throttled clock would skip most). */
const SKIPPED_MAX = 3;

let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
});
const browser = engineForFile();

const visibleAtSend = (flags: number): boolean | undefined =>
  (flags & (FLAG.visibleAtSend << FLAG_KNOWN_SHIFT)) === 0 ? undefined : (flags & FLAG.visibleAtSend) !== 0;

describe.skipIf(laneEngine() === "chromium")(`a hidden page in ${laneEngine()}`, () => {
  it("keeps 1 Hz from its worker clock while a main-thread timer is throttled, and records it was hidden", {
    timeout: HIDDEN_MS + 90_000,
  }, async () => {
    server = await startServerProcess(["--no-ping"]);
    const page = await browser().newPage();
    await page.goto(`${server.url}/`);
    await waitFor(
      async () => ((await page.evaluate<number>("window.tailprobe?.ticks ?? 0")) > 0 ? true : undefined),
      15_000,
      "the probe clock to tick",
    );
    await page.evaluate(`(() => {
      window.__testChanges = [];
      document.addEventListener("visibilitychange", () => window.__testChanges.push([Date.now(), document.visibilityState]));
      window.__testWakeupsMs = [];
      setInterval(() => window.__testWakeupsMs.push(Date.now()), ${MAIN_TIMER_MS});
    })()`);
    await sleep(3000);
    await page.setHidden(true);
    await sleep(HIDDEN_MS);
    await page.setHidden(false);
    await sleep(4000);

    const facts = await page.evaluate<{
      sessionId: string;
      sent: number;
      changes: [number, string][];
      wakeups: number[];
    }>(
      "({ sessionId: window.tailprobe.sessionId, sent: window.tailprobe.sent, changes: window.__testChanges, wakeups: window.__testWakeupsMs })",
    );
    expect(facts.changes.map(([, s]) => s)).toEqual(["hidden", "visible"]);
    const [[hiddenAt], [shownAt]] = facts.changes as [[number, string], [number, string]];
    expect(shownAt - hiddenAt).toBeGreaterThanOrEqual(HIDDEN_MS - 1000);
    const rows = await waitFor(
      () => {
        const r = readSession(server!.dbPath, facts.sessionId);
        return r.length >= facts.sent ? r : undefined;
      },
      20_000,
      `${facts.sent} samples in the database`,
    );

    const lastFrom = shownAt - LAST_MS;
    const mainHidden = facts.wakeups.filter((t) => t >= lastFrom && t < shownAt).length;
    const mainVisible = facts.wakeups.filter((t) => t >= hiddenAt - 2000 && t < hiddenAt).length;
    expect(mainVisible, "main-thread wake-ups in the 2 s before hiding").toBeGreaterThanOrEqual(10);
    expect(mainHidden, `main-thread wake-ups in the last ${LAST_MS / 1000} s hidden`).toBeLessThanOrEqual(
      MAIN_WAKEUPS_MAX,
    );

    const fromT = Math.ceil(lastFrom / INTERVAL_MS) * INTERVAL_MS;
    const toT = Math.floor(shownAt / INTERVAL_MS) * INTERVAL_MS - INTERVAL_MS;
    const account = accountTicks(rows, INTERVAL_MS, fromT, toT);
    expect(account.problems, account.problems.slice(0, 10).join("\n")).toEqual([]);
    expect(account.ticks).toBeGreaterThanOrEqual(LAST_MS / INTERVAL_MS - 2);
    for (const [method, acc] of Object.entries(account.perMethod)) {
      expect(acc.records, method).toBe(account.ticks);
      expect(acc.skipped, `${method} ticks skipped`).toBeLessThanOrEqual(SKIPPED_MAX);
    }

    const sent = rows.filter((r) => r.scheduledT !== null && r.outcome !== "skipped");
    const whileHidden = sent.filter((r) => r.t > hiddenAt + 50 && r.t < shownAt - 50);
    const whileVisible = sent.filter((r) => r.t < hiddenAt - 50 || r.t > shownAt + 50);
    expect(whileVisible.length).toBeGreaterThanOrEqual(8);
    for (const method of ["xhr", "jsonp", "ws", "best2"]) {
      const mine = whileHidden.filter((r) => r.method === method).sort((x, y) => x.t - y.t);
      expect(mine.length, `${method} probes while hidden`).toBeGreaterThanOrEqual(HIDDEN_MS / INTERVAL_MS - 4);
      expect(
        mine.filter((r) => visibleAtSend(r.flags) !== false),
        `${method} visibleAtSend while hidden`,
      ).toEqual([]);
      expect(
        mine.filter((r) => Math.abs(r.hiddenMs! - (r.t - hiddenAt)) > 100),
        `${method} hiddenMs`,
      ).toEqual([]);
    }
    expect(
      whileVisible.filter((r) => visibleAtSend(r.flags) !== true || r.hiddenMs !== 0),
      "visible probes",
    ).toEqual([]);
    expect(await page.errors()).toEqual([]);
    console.log(
      `${laneEngine()}: hidden for real (${laneEngine() === "firefox" ? "another tab in front" : "window minimised"}) ` +
        `for ${shownAt - hiddenAt} ms; last ${LAST_MS / 1000} s: the page's ${MAIN_TIMER_MS} ms main-thread timer woke ` +
        `${mainHidden} times (${mainVisible} in the 2 s before), the worker clock kept ${account.ticks} ticks`,
      account.perMethod,
    );
    await page.close();
  });
});
