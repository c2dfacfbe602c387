// Five minutes of the probe page against A and B: no probe is sent while a
// report to its server is in flight. The page's own record says so: every
// probe sample carries reportInFlight, stored as a flag bit, and it is false
// on all of them; the filter reportInFlight=1 finds no probe.
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import type { StatsResponse } from "../../shared/contract/index.js";
import { FLAG, FLAG_KNOWN_SHIFT } from "../../server/store/flags.js";
import { waitForDelivered } from "../../testkit/delivered.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, type ServerProcess, waitForPeerName } from "../../testkit/server-process.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const PROBE_MS = 5 * 60_000;
const PROBE_METHODS = ["xhr", "jsonp", "ws", "best2"];

let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  b = await startServerProcess(["--name", "B", "--no-ping"]);
  a = await startServerProcess(["--name", "A", "--no-ping", "--peer", b.url]);
  await waitForPeerName(a, "B");
});

const browser = browserForFile(async () => {
  await a?.stop();
  await b?.stop();
});

describe("reports never share a probe's moment", () => {
  it("reportInFlight is false on every probe of a five-minute run", { timeout: PROBE_MS + 120_000 }, async () => {
    const page = await browser().context.newPage();
    const startMs = Date.now();
    await page.goto(`${a.url}/`);
    await page.waitForTimeout(PROBE_MS);
    await waitForDelivered(page, a.dbPath);
    const delivered = await page.evaluate(
      () => (window as unknown as { tailprobe: { outbox: { delivered: number } } }).tailprobe.outbox.delivered,
    );
    await page.close();

    const db = new Database(a.dbPath, { readonly: true });
    // Raw samples are blocks (store version 7): read through the decoded TEMP view.
    const rows = loadSampleTables(db)
      .prepare(
        `SELECT method, target, outcome, flags FROM samples WHERE t >= ? AND method IN (${PROBE_METHODS.map(() => "?").join(", ")})`,
      )
      .all(startMs, ...PROBE_METHODS) as { method: string; target: string; outcome: string; flags: number }[];
    db.close();
    const bit = FLAG.reportInFlight;
    const sent = rows.filter((r) => r.outcome !== "skipped");
    // One probe per method and server a second: about 300 of each of the 7 series.
    expect(sent.length).toBeGreaterThanOrEqual(7 * (PROBE_MS / 1000 - 10));
    // Reports happened meanwhile (about one every 5 s), so the flag had a chance to be true.
    expect(delivered).toBeGreaterThanOrEqual(sent.length);
    const unknown = sent.filter((r) => ((r.flags >> FLAG_KNOWN_SHIFT) & bit) === 0);
    expect(unknown.length, "probes that record no reportInFlight").toBe(0);
    const overlapped = sent.filter((r) => (r.flags & bit) !== 0);
    expect(
      overlapped.map((r) => `${r.method} ${r.target}`),
      "probes sent while a report was in flight",
    ).toEqual([]);

    const stats = (await (await fetch(`${a.url}/api/stats?from=${startMs}&reportInFlight=1`)).json()) as StatsResponse;
    expect(stats.rows.filter((r) => PROBE_METHODS.includes(r.method))).toEqual([]);
  });
});
