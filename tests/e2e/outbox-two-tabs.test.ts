// Two probe tabs share one IndexedDB outbox. Each open page holds a Web Lock
// for its session, so neither delivers the other's rows (which would be
// harmless but doubles the traffic); a closed tab's rows are another matter,
// see durability-reload.test.ts.
// @lane waiting: asserts which tab delivered which session.
import { describe, expect, it } from "vitest";
import { debugState, openProbePage, readSession, seqGaps, sleep } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";

let server: ServerProcess | undefined;
const browser = browserForFile(() => server?.stop());

describe("two probe tabs", () => {
  it("each delivers its own session, never the other's", { timeout: 60_000 }, async () => {
    server = await startServerProcess(["--no-ping"]);
    const one = await browser().context.newPage();
    const two = await browser().context.newPage();
    const a = await openProbePage(one, `${server.url}/`);
    const b = await openProbePage(two, `${server.url}/`);
    expect(a.sessionId).not.toBe(b.sessionId);
    await sleep(8000);

    for (const [page, who] of [
      [one, a],
      [two, b],
    ] as const) {
      const mark = (await debugState(page)).sent;
      const rows = await waitFor(
        () => {
          const r = readSession(server!.dbPath, who.sessionId);
          return r.length >= mark ? r : undefined;
        },
        20_000,
        `${mark} samples of ${who.sessionId}`,
      );
      expect(seqGaps(rows)).toEqual([]);
      // The rows are stored; the tab counts them delivered when it has read the answer, a
      // moment later on a busy machine (a CI run read 41 of 46 here): wait for that too.
      const state = await waitFor(
        async () => {
          const s = await debugState(page);
          return s.outbox.delivered >= mark - 10 ? s : undefined;
        },
        10_000,
        `the tab to count ${mark - 10} of its samples delivered`,
      );
      // Nothing this tab sent was already there, and what it delivered plus what it
      // holds is exactly what it emitted (one snapshot): a tab that delivered the
      // other's rows would count more, a tab robbed of its own rows fewer.
      expect(state.outbox.duplicates).toBe(0);
      expect([state.outbox.rejected, state.outbox.dropped]).toEqual([0, 0]);
      expect(state.outbox.delivered + state.outbox.pending, JSON.stringify(state)).toBe(state.sent);
      expect(state.outbox.delivered).toBeGreaterThanOrEqual(mark - 10);
    }
    await one.close();
    await two.close();
  });
});
