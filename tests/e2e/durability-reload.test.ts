// The page is reloaded while its home server is down: the old session's
// samples exist only in the page's IndexedDB outbox, and the next session
// must deliver them once the server is back.
// @lane waiting: asserts that an old session's samples arrive, not when.
import { describe, expect, it } from "vitest";
import { debugState, openProbePage, readSession, seqGaps, sleep } from "../helpers/durability.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";

let server: ServerProcess | undefined;
const browser = browserForFile(() => server?.stop());

describe("reload while the home server is down", () => {
  it("delivers the old session's samples once the server is back", { timeout: 90_000 }, async () => {
    server = await startServerProcess(["--no-ping"]);
    const { port, dbPath, url } = server;
    const page = await browser().context.newPage();
    const first = await openProbePage(page, `${url}/`);
    await sleep(4000);

    await server.kill();
    const killedAt = Date.now();
    await sleep(5000);
    const before = await debugState(page);
    expect(before.outbox.pending, "samples waiting while the server is away").toBeGreaterThan(5);

    // The reload cannot even fetch the page: the old session is gone, its
    // samples are only in IndexedDB.
    await page.reload().catch(() => undefined);
    server = await startServerProcess(["--no-ping", "--port", String(port)], { dbPath });
    const second = await openProbePage(page, `${url}/`);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.clientId).toBe(first.clientId);

    const rows = await waitFor(
      () => {
        const r = readSession(dbPath, first.sessionId);
        return r.length >= before.sent ? r : undefined;
      },
      30_000,
      `the old session's ${before.sent} samples`,
    );
    expect(seqGaps(rows), "missing seqs of the old session").toEqual([]);
    expect(rows[0]!.seq).toBe(0);
    // The samples measured while the server was down came from the outbox, and their outcomes say so.
    const outage = rows.filter((r) => r.scheduledT! > killedAt + 500);
    expect(outage.length).toBeGreaterThan(5);
    expect(outage.every((r) => r.outcome === "error" || r.outcome === "timeout")).toBe(true);

    // The new session probes and reports as usual, and its outbox drains.
    await waitFor(
      async () => ((await debugState(page)).outbox.delivered > before.sent ? true : undefined),
      20_000,
      "the new session's own deliveries",
    );
    const now = await debugState(page);
    expect(now.outbox.rejected).toBe(0);
    expect(readSession(dbPath, second.sessionId).length).toBeGreaterThan(0);
    console.log(`reload: old session ${rows.length} samples delivered by the new one`, now.outbox);
    await page.close();
  });
});
