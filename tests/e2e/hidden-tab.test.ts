// A tab really in the background keeps probing once a second, and its samples
// say they were measured hidden (visibleAtSend false, hiddenMs growing), so
// the histogram page can leave them out.
//
// How the tab is hidden: for real. Chromium runs without the flags that
// switch background throttling off, driven over its DevTools protocol rather
// than by Playwright, which keeps every page it drives visible
// (tests/helpers/cdp-browser.ts); the probe tab goes behind a second tab of
// the same window for HIDDEN_MS. Within about a minute Chrome's intensive
// throttling sets in and a hidden page's own timers wake once a minute. The
// probe clock lives in a dedicated worker so that it keeps 1 Hz all the same.
// The test also runs a main-thread setInterval in the same tab and checks it
// was throttled: the condition the worker clock is tested under was real.
// @lane waiting: minutes on the clock with one tab at 1 Hz; asserts ticks per minute, a throttled timer and flags,
// which a busy machine does not move (a tick reached late is allowed for).
import { afterAll, describe, expect, it } from "vitest";
import { FLAG, FLAG_KNOWN_SHIFT } from "../../server/store/flags.js";
import { launchCdpBrowser, type CdpBrowser, type CdpTab } from "../helpers/cdp-browser.js";
import { accountTicks, readSession, sleep } from "../helpers/durability.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";

const INTERVAL_MS = 1000;
/** How long the probe tab stays behind the other tab (ms): throttling needs about a minute to set in. */
const HIDDEN_MS = 155_000;
/** The end of the hidden time that is checked (ms), when a main-thread timer is throttled to one wake-up a minute. */
const LAST_MS = 60_000;
/**
 * Most wake-ups of the main-thread 1 s interval allowed in the last LAST_MS
 * hidden: unthrottled it wakes 60 times, intensively throttled once or twice.
 */
const MAIN_WAKEUPS_MAX = 10;
/**
 * Ticks per method in the last LAST_MS that may be skipped: the main thread of
 * an overloaded machine may reach a tick a whole interval late, which is
 * recorded as skipped. A throttled clock would skip 59 of 60.
 */
const SKIPPED_MAX = 3;

let server: ServerProcess | undefined;
let chromium: CdpBrowser | undefined;
afterAll(async () => {
  await chromium?.close();
  await server?.stop();
});

const visibleAtSend = (flags: number): boolean | undefined =>
  (flags & (FLAG.visibleAtSend << FLAG_KNOWN_SHIFT)) === 0 ? undefined : (flags & FLAG.visibleAtSend) !== 0;

interface PageFacts {
  sessionId: string;
  sent: number;
  ticks: number;
  /** Page-clock epoch ms of each visibilitychange, with the new state. */
  changes: [number, string][];
  /** Page-clock epoch ms of each wake-up of the main-thread setInterval. */
  mainWakeupsMs: number[];
}

const facts = (tab: CdpTab) =>
  tab.evaluate<PageFacts>(`(() => {
    const t = window.tailprobe;
    return { sessionId: t.sessionId, sent: t.sent, ticks: t.ticks, changes: window.__testChanges, mainWakeupsMs: window.__testWakeupsMs };
  })()`);

describe("a tab hidden behind another tab", () => {
  it("keeps 1 Hz from its worker clock while a main-thread timer is throttled, and records it was hidden", {
    timeout: HIDDEN_MS + 90_000,
  }, async () => {
    server = await startServerProcess(["--no-ping"]);
    chromium = await launchCdpBrowser();
    const probe = await chromium.open(`${server.url}/`);
    await waitFor(
      async () => ((await probe.evaluate<number>("window.tailprobe?.ticks ?? 0")) > 0 ? true : undefined),
      15_000,
      "the probe clock to tick",
    );
    await probe.evaluate(`(() => {
      window.__testChanges = [];
      document.addEventListener("visibilitychange", () => window.__testChanges.push([Date.now(), document.visibilityState]));
      window.__testWakeupsMs = [];
      setInterval(() => window.__testWakeupsMs.push(Date.now()), ${INTERVAL_MS});
    })()`);
    await sleep(3000);
    expect(await probe.visibility()).toBe("visible");

    const front = await chromium.open("about:blank");
    await front.activate();
    await waitFor(
      async () => ((await probe.visibility()) === "hidden" ? true : undefined),
      10_000,
      "the probe tab to be hidden",
    );
    await sleep(HIDDEN_MS);
    await probe.activate();
    await waitFor(
      async () => ((await probe.visibility()) === "visible" ? true : undefined),
      10_000,
      "the probe tab to be shown",
    );
    await sleep(4000);

    const page = await facts(probe);
    expect(page.changes.map(([, state]) => state)).toEqual(["hidden", "visible"]);
    const [[hiddenAt], [shownAt]] = page.changes as [[number, string], [number, string]];
    expect(shownAt - hiddenAt).toBeGreaterThanOrEqual(HIDDEN_MS);
    const rows = await waitFor(
      () => {
        const r = readSession(server!.dbPath, page.sessionId);
        return r.length >= page.sent ? r : undefined;
      },
      20_000,
      `${page.sent} samples in the database`,
    );

    // The condition was real: the page's own timer was throttled in the last minute hidden.
    const lastFrom = shownAt - LAST_MS;
    const mainWakeups = page.mainWakeupsMs.filter((t) => t >= lastFrom && t < shownAt).length;
    const mainBefore = page.mainWakeupsMs.filter((t) => t < hiddenAt).length;
    expect(mainBefore, "main-thread timer while visible").toBeGreaterThanOrEqual(2);
    expect(mainWakeups, "main-thread timer wake-ups in the last minute hidden").toBeLessThanOrEqual(MAIN_WAKEUPS_MAX);

    // The worker clock was not: every method has one record per tick of the
    // last minute, and all but a few of them are probes really sent.
    const fromT = Math.ceil(lastFrom / INTERVAL_MS) * INTERVAL_MS;
    const toT = Math.floor(shownAt / INTERVAL_MS) * INTERVAL_MS - INTERVAL_MS;
    const account = accountTicks(rows, INTERVAL_MS, fromT, toT);
    expect(account.problems, account.problems.slice(0, 10).join("\n")).toEqual([]);
    expect(account.ticks).toBeGreaterThanOrEqual(LAST_MS / INTERVAL_MS - 2);
    for (const [method, acc] of Object.entries(account.perMethod)) {
      expect(acc.records, method).toBe(account.ticks);
      expect(acc.skipped, `${method} ticks skipped`).toBeLessThanOrEqual(SKIPPED_MAX);
    }

    // Every probe sent while hidden says so, with the time since the tab was
    // hidden; probes sent while visible say visible and 0. Both sides of each
    // comparison are the page's own clock readings, a few ms apart at most.
    const sentProbes = rows.filter((r) => r.scheduledT !== null && r.outcome !== "skipped");
    const whileHidden = sentProbes.filter((r) => r.t > hiddenAt + 50 && r.t < shownAt - 50);
    const whileVisible = sentProbes.filter((r) => r.t < hiddenAt - 50 || r.t > shownAt + 50);
    expect(whileHidden.length).toBeGreaterThanOrEqual(4 * (HIDDEN_MS / INTERVAL_MS - SKIPPED_MAX * 3));
    expect(whileVisible.length).toBeGreaterThanOrEqual(8);
    for (const method of ["xhr", "jsonp", "ws", "best2"]) {
      const mine = whileHidden.filter((r) => r.method === method).sort((a, b) => a.t - b.t);
      expect(
        mine.filter((r) => visibleAtSend(r.flags) !== false),
        `${method} visibleAtSend while hidden`,
      ).toEqual([]);
      expect(
        mine.filter((r) => Math.abs(r.hiddenMs! - (r.t - hiddenAt)) > 100),
        `${method} hiddenMs`,
      ).toEqual([]);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.hiddenMs!).toBeGreaterThan(mine[i - 1]!.hiddenMs!);
    }
    expect(
      whileVisible.filter((r) => visibleAtSend(r.flags) !== true || r.hiddenMs !== 0),
      "visible probes",
    ).toEqual([]);

    console.log(
      `hidden for real for ${shownAt - hiddenAt} ms; last ${LAST_MS / 1000} s: main-thread timer woke ${mainWakeups} times, ` +
        `worker clock ${account.ticks} ticks`,
      account.perMethod,
    );
  });
});
