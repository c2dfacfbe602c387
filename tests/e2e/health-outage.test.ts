// The seed's convenient outage, told as it happens: a page on A probes A and
// B, B is killed (SIGKILL) and restarted. A must list B down within seconds
// with a start within 3 s of the kill and a verdict naming the server, close
// it once B is back, and raise nothing for itself or for best-of-two. The
// status page tells the public the same, without a client, label or address.
// Then the same with both servers on one PostgreSQL, each probing the other.
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { Incident, IncidentsResponse, StatusResponse } from "../../shared/contract/index.js";
import { artifactPath } from "../../testkit/browser.js";
import { postgresAvailable } from "../../testkit/postgres.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { startServerProcess, waitFor, waitForPeerName, type ServerProcess } from "../../testkit/server-process.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startInProcess } from "../helpers/in-process.js";
import { testPostgres } from "../helpers/store-kinds.js";

/** The page probes this long before the kill (ms): every source has a view by then. */
const WARM_MS = 8000;
/** The done-when bound: an incident's start within this long of the kill (ms). */
const START_AFTER_KILL_MS_MAX = 3000;
/** How long B stays dead (ms). */
const DEAD_MS = 12_000;
/** How long the incident may take to be listed, and closed, at worst on a loaded machine (ms). */
const LISTED_MS_MAX = 15_000;
const CLOSED_MS_MAX = 30_000;
const LABEL = "desk-in-room-4711";

const servers: ServerProcess[] = [];
const browser = browserForFile(async () => {
  for (const s of servers) await s.stop();
});

async function incidentsOf(s: ServerProcess, fromMs: number): Promise<Incident[]> {
  const res = await fetch(`${s.url}/api/incidents?from=${fromMs}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as IncidentsResponse).incidents;
}

async function openPage(home: Pick<ServerProcess, "url">): Promise<{ page: Page; errors: string[] }> {
  const page = await browser().context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${home.url}/?label=${LABEL}`);
  await page.waitForFunction(
    () => ((window as unknown as { tailprobe?: { ticks: number } }).tailprobe?.ticks ?? 0) > 1,
  );
  return { page, errors };
}

interface Outage {
  incident: Incident;
  killMs: number;
  listedAfterMs: number;
  closedAfterRestartMs: number;
}

/** Kills `b`, waits for `a` to list it down, restarts it, waits for the incident to close. */
async function outage(
  a: ServerProcess,
  b: ServerProcess,
  restartArgs: string[],
  dbPath?: string,
): Promise<Outage & { b: ServerProcess }> {
  const killMs = Date.now();
  await b.kill();
  const incident = await waitFor(
    async () => (await incidentsOf(a, killMs - 60_000)).find((i) => i.target === "B" && i.kind === "down"),
    LISTED_MS_MAX,
    "A to list B down",
  );
  const listedAfterMs = Date.now() - killMs;
  const stillDown = Math.max(0, killMs + DEAD_MS - Date.now());
  await new Promise((r) => setTimeout(r, stillDown));
  const restartMs = Date.now();
  const back = await startServerProcess([...restartArgs, "--port", String(b.port)], { dbPath: dbPath ?? b.dbPath });
  servers.push(back);
  const closed = await waitFor(
    async () => (await incidentsOf(a, killMs - 60_000)).find((i) => i.id === incident.id && i.end !== null),
    CLOSED_MS_MAX,
    "A to close B's incident",
  );
  return { incident: closed, killMs, listedAfterMs, closedAfterRestartMs: Date.now() - restartMs, b: back };
}

function expectServerVerdict(o: Outage, clients: number): void {
  const i = o.incident;
  expect(i.start - o.killMs, "start after the kill").toBeGreaterThanOrEqual(0);
  expect(i.start - o.killMs, "start within 3 s of the kill").toBeLessThanOrEqual(START_AFTER_KILL_MS_MAX);
  expect(i.verdict).toBe("server");
  expect(i.observer).toBe("A");
  expect(i.summary).toMatch(
    new RegExp(
      `^B down: failing from ${clients} of ${clients} clients? and from A's own probe since \\d\\d:\\d\\d:\\d\\d UTC$`,
    ),
  );
  expect(i.methods).toEqual(expect.arrayContaining(["xhr", "jsonp", "ws", "peerhttp", "peerws"]));
  expect(i.end! - i.start).toBeGreaterThan(DEAD_MS - 2000);
}

describe("B killed under a running page", () => {
  it("SQLite: A lists B down within seconds and closes it after the restart; nothing else; /status tells it", {
    timeout: 180_000,
  }, async () => {
    const b = await startServerProcess(["--name", "B", "--no-ping"]);
    servers.push(b);
    const a = await startServerProcess(["--name", "A", "--no-ping", "--peer", `B=${b.url}`]);
    servers.push(a);
    const { page, errors } = await openPage(a);
    await page.waitForTimeout(WARM_MS);
    const t0 = Date.now() - WARM_MS - 5000;

    // While B is dead, the status page already says so.
    const killMs = Date.now();
    const downSeen = outage(a, b, ["--name", "B", "--no-ping"]);
    const statusWhileDown = await waitFor(
      async () => {
        const s = (await (await fetch(`${a.url}/api/status`)).json()) as StatusResponse;
        return s.servers.find((x) => x.name === "B")?.state === "down" ? s : undefined;
      },
      LISTED_MS_MAX + 10_000,
      "/api/status to say B is down",
    );
    const o = await downSeen;
    expect(o.killMs - killMs).toBeLessThan(100);
    expectServerVerdict(o, 1);
    console.log(
      `outage (SQLite): start ${o.incident.start - o.killMs} ms after the kill, listed after ${o.listedAfterMs} ms, ` +
        `closed ${o.closedAfterRestartMs} ms after the restart: ${o.incident.summary}`,
    );

    // Nothing else: not A, not best-of-two, not a degradation on the way down or up.
    await page.waitForTimeout(6000);
    const all = await incidentsOf(a, t0);
    expect(all.map((i) => `${i.target} ${i.kind} ${i.verdict}`)).toEqual(["B down server"]);

    // The status page, in Chromium, as a first-time visitor sees it.
    const clientId = await page.evaluate(
      () => (window as unknown as { tailprobe: { clientId: string } }).tailprobe.clientId,
    );
    const status = await browser().context.newPage();
    const consoleErrors: string[] = [];
    status.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    const res = await status.goto(`${a.url}/status`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("default-src 'none'");
    expect(res?.headers()["cache-control"]).toMatch(/^public, max-age=\d+$/);
    await status.screenshot({ path: artifactPath("status-page-after-outage.png"), fullPage: true });
    const b2 = status.locator("#server-B");
    await expect.poll(() => b2.getAttribute("data-state")).toBe("up");
    expect(await status.locator("#server-A").getAttribute("data-state")).toBe("up");
    expect(await b2.locator("ol.incidents li").first().innerText()).toContain(
      "B down: failing from 1 of 1 client and from A's own probe",
    );
    expect(await b2.locator("dl.uptime dd").allInnerTexts()).toEqual([
      expect.stringMatching(/^\d+(\.\d\d)? %$/),
      expect.stringMatching(/ %$/),
      expect.stringMatching(/ %$/),
    ]);
    // Today's bar says B was down.
    expect(await b2.locator("svg.bars rect").last().getAttribute("class")).toBe("day down");
    expect(await b2.locator("svg.bars rect").count()).toBe(90);
    // Stylesheet applied (no inline style allowed): the badge has its state's colour.
    const badge = await b2.locator(".badge").evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(badge).toBe("rgb(0, 158, 115)");
    expect(consoleErrors, "CSP violations or script errors").toEqual([]);

    // Nothing private, in the HTML or the JSON.
    const html = await status.content();
    const json = await (await fetch(`${a.url}/api/status`)).text();
    const publicId = publicIdOf(a.dbPath, clientId);
    for (const text of [html, json, JSON.stringify(statusWhileDown)])
      for (const secret of [clientId, publicId, LABEL, "127.0.0.1", "http://", "HeadlessChrome"])
        expect(text, `status shows ${secret}`).not.toContain(secret);
    expect(statusWhileDown.servers.find((x) => x.name === "A")?.state).toBe("up");
    await status.close();

    // The histogram page lists it and shades it; a click focuses the page on it.
    const hist = await browser().context.newPage();
    await hist.goto(`${a.url}/histogram?range=15m`);
    const item = hist.locator(`#incident-list li[data-id="${o.incident.id}"] button`);
    await item.waitFor({ timeout: 15_000 });
    expect(await item.innerText()).toContain("B down: failing from 1 of 1 client");
    await item.click();
    await expect
      .poll(() => new URL(hist.url()).searchParams.get("focus"))
      .toBe(`${o.incident.start}-${o.incident.end}`);
    await expect.poll(() => item.getAttribute("aria-pressed")).toBe("true");
    await hist.locator("#timeseries-panels figure[data-series='xhr@B']").waitFor({ timeout: 15_000 });
    await hist.screenshot({ path: artifactPath("histogram-incident-focused.png"), fullPage: true });
    await hist.close();
    await page.close();
    expect(errors).toEqual([]);
  });

  it("a failed probe reaches the home server within a tick, in a health note, not with the next report", {
    timeout: 120_000,
  }, async () => {
    const b = await startServerProcess(["--name", "B", "--no-ping"]);
    servers.push(b);
    // In this process, to read what its health monitor saw; the pages as built.
    const a = await startInProcess(["--name", "A", "--peer", `B=${b.url}`], [], {
      clientDir: path.resolve("dist/client"),
    });
    try {
      const { page, errors } = await openPage(a);
      await page.waitForTimeout(5000);
      await b.kill();
      await page.waitForTimeout(8000);
      const lags = a.health.failureLags();
      const notes = await page.evaluate(
        () => (window as unknown as { tailprobe: { healthNotes: { notes: number } } }).tailprobe.healthNotes,
      );
      const sorted = [...lags.note].sort((x, y) => x - y);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
      console.log(
        `failure to server: ${sorted.length} failures by note, p50 ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, ` +
          `max ${at(1).toFixed(0)} ms; ${lags.report.length} came first with a report; ${notes.notes} notes sent`,
      );
      // 8 s of B dead: three methods a tick fail, nearly all of them in notes.
      expect(sorted.length).toBeGreaterThanOrEqual(15);
      expect(notes.notes).toBeGreaterThanOrEqual(5);
      // Within a few seconds of settling, not a report's 5: the next housekeeping slot (within one interval).
      expect(at(1)).toBeLessThanOrEqual(3000);
      await page.close();
      expect(errors).toEqual([]);
    } finally {
      await a.close();
    }
  });

  it.skipIf(!postgresAvailable())(
    "PostgreSQL, two servers on one database: the same, and both list it",
    {
      timeout: 180_000,
    },
    async () => {
      const url = await (await testPostgres()).createDatabase("health_outage");
      const b = await startServerProcess(["--name", "B", "--no-ping"], { dbPath: url });
      servers.push(b);
      const a = await startServerProcess(["--name", "A", "--no-ping", "--peer", `B=${b.url}`], { dbPath: url });
      servers.push(a);
      await waitForPeerName(a, "B");
      const { page, errors } = await openPage(a);
      await page.waitForTimeout(WARM_MS);
      const t0 = Date.now() - WARM_MS - 5000;
      const o = await outage(a, b, ["--name", "B", "--no-ping"], url);
      expectServerVerdict(o, 1);
      console.log(
        `outage (PostgreSQL): start ${o.incident.start - o.killMs} ms after the kill, listed after ${o.listedAfterMs} ms, ` +
          `closed ${o.closedAfterRestartMs} ms after the restart`,
      );
      await page.waitForTimeout(6000);
      for (const s of [a, o.b]) {
        const all = await incidentsOf(s, t0);
        expect(
          all.map((i) => `${i.target} ${i.kind} ${i.verdict} ${i.end !== null}`),
          `listed by ${s.url}`,
        ).toEqual(["B down server true"]);
        expect(all[0]!.id).toBe(o.incident.id);
      }
      await page.close();
      expect(errors).toEqual([]);
    },
  );
});
