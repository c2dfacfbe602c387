// No probe is sent while a report to its server is in flight. The page's own
// record says so: every probe sample carries reportInFlight, stored as a flag
// bit, and it is false on all of them; the filter reportInFlight=1 finds no probe.
//
// What the claim needs is encounters: each report is a chance to run into
// the next probe, so the sample is the number of reports (and the probes
// around them), not the minutes. A page reports at most every
// FLUSH_INTERVAL_MS (5 s; in practice every 5-6 s, at the next gap), so one
// page took five minutes for 55 reports and 2,093 probes. PAGES probe pages at
// once, each with the product's own settings (1 Hz, 5 s flushes, batches as
// large as a user's), give as many in 40 % of the time. Each page's flag is
// its own outbox's, so the pages do not stand in for each other; their
// reports reach A in the same gaps (clocks keep wall-clock seconds), which
// makes each report slower, not faster. The test asserts the counts it rests
// on (REPORTS_MIN, PROBES_MIN), not only its duration.
import Database from "better-sqlite3";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { FLUSH_INTERVAL_MS } from "../../client/src/report/outbox.js";
import { FLAG, FLAG_KNOWN_SHIFT } from "../../server/store/flags.js";
import type { StatsResponse } from "../../shared/contract/index.js";
import { waitForDelivered } from "../../testkit/delivered.js";
import { loadSampleTables } from "../../testkit/sample-table.js";
import { type ServerProcess, startServerProcess, waitForPeerName } from "../../testkit/server-process.js";
import { browserForFile } from "../helpers/e2e-fixture.js";

const PAGES = 3;
const PROBE_MS = 120_000;
const PROBE_METHODS = ["xhr", "jsonp", "ws", "best2"];
/** Series a page sends each second: xhr, jsonp and ws to A and to B, and best of two. */
const SERIES = 7;
/**
 * What the five-minute run with one page rested on: 55 reports when its
 * requests were counted on this machine, and its own bound on probes (7
 * series × 290 s; 2,093 were sent).
 */
const REPORTS_MIN = 55;
const PROBES_MIN = SERIES * (300 - 10);
/**
 * TAILPROBE_PLANT_REGRESSION=1 plants a rare fault the counts above must be
 * large enough to meet: every PLANT_EVERY-th report (over all pages) is held
 * PLANT_HOLD_MS in the browser, longer than any gap, as a report that
 * outlasts its gap on a loaded machine is. With ≥ REPORTS_MIN reports at least
 * two are held, and the probes sent meanwhile must be caught: the test must
 * then fail on them. (A held report also makes its page wait for roomier gaps
 * for its next few reports, so a planted run makes fewer reports than a clean one.)
 */
const PLANT = process.env.TAILPROBE_PLANT_REGRESSION === "1";
const PLANT_EVERY = 25;
const PLANT_HOLD_MS = 600;

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

const isReport = (method: string, url: string) => method === "POST" && new URL(url).pathname === "/api/samples";

describe("reports never share a probe's moment", () => {
  it(`reportInFlight is false on every probe of ${PAGES} pages probing for ${PROBE_MS / 1000} s`, {
    timeout: PROBE_MS + 120_000,
  }, async () => {
    const context = browser().context;
    let reports = 0;
    let held = 0;
    if (PLANT)
      await context.route("**/api/samples", async (route) => {
        if (route.request().method() === "POST" && ++held % PLANT_EVERY === 0)
          await new Promise((r) => setTimeout(r, PLANT_HOLD_MS));
        await route.continue();
      });
    const pages: Page[] = [];
    for (let i = 0; i < PAGES; i++) {
      const page = await context.newPage();
      page.on("requestfinished", (req) => {
        if (isReport(req.method(), req.url())) reports++;
      });
      pages.push(page);
    }
    const startMs = Date.now();
    await Promise.all(pages.map((p) => p.goto(`${a.url}/`)));
    await pages[0]!.waitForTimeout(PROBE_MS);
    for (const page of pages) await waitForDelivered(page, a.dbPath);
    const delivered = await Promise.all(
      pages.map((p) =>
        p.evaluate(
          () => (window as unknown as { tailprobe: { outbox: { delivered: number } } }).tailprobe.outbox.delivered,
        ),
      ),
    );
    const reportsMade = reports;
    for (const page of pages) await page.close();

    const db = new Database(a.dbPath, { readonly: true });
    // Raw samples are blocks (store version 7): read through the decoded TEMP view.
    const rows = loadSampleTables(db)
      .prepare(
        `SELECT s.session_key AS session, method, target, outcome, flags FROM samples JOIN sessions s ON s.id = samples.session
         WHERE t >= ? AND method IN (${PROBE_METHODS.map(() => "?").join(", ")})`,
      )
      .all(startMs, ...PROBE_METHODS) as {
      session: string;
      method: string;
      target: string;
      outcome: string;
      flags: number;
    }[];
    db.close();
    const bit = FLAG.reportInFlight;
    const sent = rows.filter((r) => r.outcome !== "skipped");
    const sessions = new Set(sent.map((r) => r.session));
    console.log(
      `report-flag: ${PAGES} pages, ${reportsMade} reports (one a page every ${FLUSH_INTERVAL_MS / 1000} s), ` +
        `${sent.length} probes sent, ${delivered.reduce((x, y) => x + y, 0)} samples delivered${PLANT ? `; planted: every ${PLANT_EVERY}th report held ${PLANT_HOLD_MS} ms` : ""}`,
    );
    expect(sessions.size, "pages that probed").toBe(PAGES);
    const unknown = sent.filter((r) => ((r.flags >> FLAG_KNOWN_SHIFT) & bit) === 0);
    expect(unknown.length, "probes that record no reportInFlight").toBe(0);
    const overlapped = sent.filter((r) => (r.flags & bit) !== 0);
    expect(
      overlapped.map((r) => `${r.method} ${r.target}`),
      "probes sent while a report was in flight",
    ).toEqual([]);
    // The sample the claim rests on: as many reports and probes as five minutes of one page.
    expect(reportsMade, "reports made (each a chance to run into a probe)").toBeGreaterThanOrEqual(REPORTS_MIN);
    expect(sent.length, "probes sent").toBeGreaterThanOrEqual(PROBES_MIN);
    for (const s of sessions)
      expect(
        sent.filter((r) => r.session === s).length,
        `probes of one page (${SERIES} series × ${PROBE_MS / 1000} s)`,
      ).toBeGreaterThanOrEqual(SERIES * (PROBE_MS / 1000 - 10));
    for (const d of delivered) expect(d).toBeGreaterThanOrEqual(SERIES * (PROBE_MS / 1000 - 10));

    const stats = (await (await fetch(`${a.url}/api/stats?from=${startMs}&reportInFlight=1`)).json()) as StatsResponse;
    expect(stats.rows.filter((r) => PROBE_METHODS.includes(r.method))).toEqual([]);
  });
});
