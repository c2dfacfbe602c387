// The home server dies (SIGKILL, no goodbye) while the page is probing, stays
// down 20 s, and comes back on the same port with the same database. Nothing
// the page measured may be lost or counted twice, and the outage itself must
// be in the data as failed probes, not as a hole.
// @lane waiting: 20 s of outage with one page at 1 Hz; asserts every seq stored once and every tick accounted for,
// not how fast.
import { describe, expect, it } from "vitest";
import { FLAG, FLAG_KNOWN_SHIFT } from "../../server/store/flags.js";
import {
  accountTicks,
  debugState,
  firstDueT,
  openProbePage,
  readSession,
  seqGaps,
  sleep,
} from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";

const INTERVAL_MS = 1000;
const DOWN_MS = 20_000;
/** The server's default probe timeout. */
const TIMEOUT_MS = 5000;

let server: ServerProcess | undefined;
const browser = browserForFile(() => server?.stop());

describe("SIGKILL of the home server while the page probes", () => {
  it("loses no sample, duplicates none, and records the outage", { timeout: 120_000 }, async () => {
    // One server: the page's only server is its home server, so the outage
    // hits the probes and the reporting at once.
    server = await startServerProcess(["--no-ping"]);
    const { port, dbPath } = server;
    const page = await browser().context.newPage();
    const { sessionId } = await openProbePage(page, `${server.url}/`);
    await sleep(6000);

    await server.kill();
    const killedAt = Date.now();
    await sleep(DOWN_MS);
    const during = await debugState(page);
    // Samples kept coming and waited in the outbox.
    expect(during.outbox.pending).toBeGreaterThan(0);
    expect(during.outbox.failures).toBeGreaterThan(0);
    server = await startServerProcess(["--no-ping", "--port", String(port)], { dbPath });
    const restartedAt = Date.now();
    // Long enough that the accounted window below reaches past the restart.
    await sleep(10_000);

    // Everything up to now reaches the database once the backoff lets the outbox retry.
    const mark = (await debugState(page)).sent;
    const rows = await waitFor(
      () => {
        const r = readSession(dbPath, sessionId);
        return r.length >= mark ? r : undefined;
      },
      45_000,
      `${mark} samples of the session in the database`,
    );
    const after = await debugState(page);

    expect(seqGaps(rows), "missing seqs").toEqual([]);
    expect(rows[0]!.seq).toBe(0);
    expect(new Set(rows.map((r) => r.seq)).size).toBe(rows.length);
    expect(after.outbox.rejected).toBe(0);
    expect(after.outbox.dropped).toBe(0);

    // The outage: every probe method targets the home server, so each has
    // failed records for the ticks it was away.
    const outage = rows.filter((r) => r.scheduledT! > killedAt + 1000 && r.scheduledT! < restartedAt - 1000);
    for (const method of ["xhr", "jsonp", "ws", "best2"]) {
      const mine = outage.filter((r) => r.method === method);
      expect(mine.length, `${method} records during the outage`).toBeGreaterThanOrEqual(DOWN_MS / INTERVAL_MS - 4);
      expect(
        mine.every((r) => r.outcome === "timeout" || r.outcome === "error"),
        `${method}: ${JSON.stringify(mine.map((r) => `${r.outcome}:${r.reason}`))}`,
      ).toBe(true);
    }
    // And probing is healthy again after the restart, and the first WebSocket
    // answer on the reconnected socket says it was fresh. (Not asserted for
    // XHR: the outbox's POST to the same origin may open the new TCP
    // connection first, and then the XHR rightly reports reusing it.)
    const back = rows.filter((r) => r.scheduledT! > restartedAt + 3000);
    expect(back.filter((r) => r.outcome === "ok").length).toBeGreaterThan(0);
    const fresh = (flags: number) =>
      (flags >> FLAG_KNOWN_SHIFT) & FLAG.fresh ? (flags & FLAG.fresh) !== 0 : undefined;
    for (const method of ["ws"]) {
      const oks = rows.filter((r) => r.method === method && r.outcome === "ok" && r.t > restartedAt);
      expect(oks.length, `${method} ok after the restart`).toBeGreaterThan(2);
      expect(fresh(oks[0]!.flags), `${method}: first ok after the restart is fresh`).toBe(true);
      expect(fresh(oks[oks.length - 1]!.flags), `${method}: later ones reuse the connection`).toBe(false);
    }

    // Done when: samples = methods × ticks. Count from the first whole tick to
    // one whose every probe has certainly settled: samples are stored in the
    // order they settle, and a probe settles at most the timeout after its send.
    const firstDue = firstDueT(rows);
    const fromT = Math.ceil(firstDue / INTERVAL_MS) * INTERVAL_MS;
    const lastSettled = Math.min(
      ...["xhr", "jsonp", "ws", "best2"].map((m) =>
        Math.max(...rows.filter((r) => r.method === m).map((r) => r.scheduledT!)),
      ),
    );
    const toT = Math.floor((lastSettled - TIMEOUT_MS - 2000) / INTERVAL_MS) * INTERVAL_MS;
    const account = accountTicks(rows, INTERVAL_MS, fromT, toT);
    expect(account.problems, account.problems.slice(0, 10).join("\n")).toEqual([]);
    // The window spans the whole outage: before the kill to after the restart.
    expect(fromT).toBeLessThan(killedAt);
    expect(toT).toBeGreaterThan(restartedAt);
    expect(account.ticks).toBeGreaterThanOrEqual(DOWN_MS / INTERVAL_MS);
    for (const [method, acc] of Object.entries(account.perMethod)) {
      expect(acc.records, method).toBe(account.ticks);
      expect(acc.ok + acc.failed + acc.skipped, method).toBe(account.ticks);
      expect(acc.skippedWithoutReason, method).toBe(0);
    }
    console.log(
      `sigkill: ${rows.length} samples, seq 0..${rows[rows.length - 1]!.seq}, ${account.ticks} ticks accounted`,
      account.perMethod,
      after.outbox,
    );
    await page.close();
  });
});
