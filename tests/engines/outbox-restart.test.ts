// The outbox survives its server's restart in the lane's engine: the home
// server is killed (SIGKILL, no goodbye) while the page probes, stays down
// DOWN_MS and comes back on the same port with the same database. Nothing the
// page measured is lost or stored twice, and the outage is in the data as
// failed probes. All real: the engine's own IndexedDB holds the outbox, the
// server process really dies. Chromium's longer version is
// tests/e2e/durability-sigkill.test.ts.
import { describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess, waitFor } from "../../testkit/server-process.js";
import { debugState, readSession, seqGaps, sleep } from "../helpers/durability.js";
import { engineForFile, laneEngine } from "../helpers/engine-lane.js";

const DOWN_MS = 12_000;
const INTERVAL_MS = 1000;

let server: ServerProcess | undefined;
const browser = engineForFile(() => server?.stop());

describe(`the outbox across a server restart in ${laneEngine()}`, () => {
  it("loses no sample, duplicates none, and records the outage", { timeout: 120_000 }, async () => {
    server = await startServerProcess(["--no-ping"]);
    const { port, dbPath } = server;
    const page = await browser().newPage();
    await page.goto(`${server.url}/`);
    await waitFor(
      async () => ((await page.evaluate<number>("window.tailprobe?.ticks ?? 0")) > 0 ? true : undefined),
      15_000,
      "the probe clock to tick",
    );
    const { sessionId } = await debugState(page);
    await sleep(5000);

    await server.kill();
    const killedAt = Date.now();
    await sleep(DOWN_MS);
    const during = await debugState(page);
    expect(during.outbox.pending, "samples waiting in the outbox").toBeGreaterThan(0);
    expect(during.outbox.failures, "failed deliveries").toBeGreaterThan(0);
    server = await startServerProcess(["--no-ping", "--port", String(port)], { dbPath });
    const restartedAt = Date.now();
    await sleep(3000);

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

    const outage = rows.filter((r) => r.scheduledT! > killedAt + 1000 && r.scheduledT! < restartedAt - 1000);
    for (const method of ["xhr", "jsonp", "ws", "best2"]) {
      const mine = outage.filter((r) => r.method === method);
      expect(mine.length, `${method} records during the outage`).toBeGreaterThanOrEqual(DOWN_MS / INTERVAL_MS - 4);
      expect(
        mine.filter((r) => r.outcome !== "timeout" && r.outcome !== "error").map((r) => `${r.outcome}:${r.reason}`),
        `${method} outcomes during the outage`,
      ).toEqual([]);
    }
    expect(rows.filter((r) => r.scheduledT! > restartedAt + 1000 && r.outcome === "ok").length).toBeGreaterThan(0);
    // Nothing thrown in the page. Firefox logs each refused WebSocket to its
    // console while the server is gone, and one cut by the kill as "interrupted
    // while the page was loading" when the kill lands before the page's load
    // event: the browser's notes, not the page's errors.
    const refusedSocket =
      /^Error: (Firefox can.t establish a connection to the server at ws:|The connection to ws:\S+ was interrupted while the page was loading\.)/;
    expect((await page.errors()).filter((e) => !refusedSocket.test(e))).toEqual([]);
    console.log(
      `${laneEngine()} outbox, all real (SIGKILL of the home server for ${DOWN_MS / 1000} s, the engine's own storage): ` +
        `${during.outbox.pending} samples waited, ${rows.length} stored, seq 0..${rows[rows.length - 1]!.seq} with no gap`,
      after.outbox,
    );
    await page.close();
  });
});
