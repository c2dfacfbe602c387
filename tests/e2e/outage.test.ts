// The seed's convenient outage, on purpose: A and B are separate processes,
// the page probes both for 10 s, B is killed (SIGKILL, no goodbye) for 15 s,
// then restarted on the same port for 15 s. Best-of-two must not notice; B's
// probes must fail at the normal rate while it is gone and recover by
// themselves; A must not be slowed by its dead neighbour.
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { INTERVAL_MS_DEFAULT, TIMEOUT_MS_DEFAULT } from "../../server/cli/options.js";
import type { RacesResponse } from "../../shared/contract/index.js";
import { FLAG } from "../../server/store/flags.js";
import { artifactPath } from "../../testkit/browser.js";
import { waitForDelivered } from "../../testkit/delivered.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";
import { failedProbe, type StoredRow } from "../helpers/stored-rows.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const BEFORE_MS = 10_000;
const OUTAGE_MS = 15_000;
const AFTER_MS = 15_000;
/** The probe interval and timeout (the servers' defaults, ms). */
const INTERVAL_MS = INTERVAL_MS_DEFAULT;
const TIMEOUT_MS = TIMEOUT_MS_DEFAULT;
/** B counts as back once every method has answered within this long of its restart (ms). */
const RECOVERY_MS_MAX = 6000;
/**
 * A's latency while B is down against A's own while B is up, in the same run
 * (the windows before the kill and after B's recovery): its median and p90
 * over A's xhr, jsonp and ws probes may move by these ratios, plus
 * A_SLACK_MS. On the shared two-core machine A's figures are a few ms, and
 * other browser lanes moved the pooled median of ~40 probes from 5.5 to
 * 8.9 ms (1.62×) in one CI run; a regression that slows A by 20 ms for as
 * long as B is away moves them several-fold, far past either bound.
 */
const A_P50_RATIO_MAX = 1.5;
const A_P90_RATIO_MAX = 2;
const A_SLACK_MS = 2;
/**
 * TAILPROBE_PLANT_REGRESSION=1 plants one the bounds above must catch: A
 * (started with its test hooks) holds each echo 20 ms in its handler while B
 * is down. The test must then fail; it is how these bounds were checked.
 */
const PLANT = process.env.TAILPROBE_PLANT_REGRESSION === "1";
const PLANTED_DELAY_MS = 20;

interface Row extends StoredRow {
  flags: number;
  scheduledT: number;
}

let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  b = await startServerProcess(["--name", "B", "--no-ping"]);
  a = await startServerProcess(["--name", "A", "--no-ping", "--peer", `B=${b.url}`], {
    env: PLANT ? { TAILPROBE_TEST_HOOKS: "1" } : {},
  });
});

/** The planted regression: A's echoes held PLANTED_DELAY_MS for durationMs from now. */
async function slowA(durationMs: number): Promise<void> {
  if (!PLANT) return;
  const res = await fetch(`${a.url}/api/test/stall`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ delayMs: PLANTED_DELAY_MS, durationMs }),
  });
  expect(res.status).toBe(200);
}

const browser = browserForFile(async () => {
  await a?.stop();
  await b?.stop();
});

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.max(1, Math.ceil((p * sorted.length) / 100)) - 1] ?? Number.NaN;
}

/**
 * Steps between consecutive due times (ms). One record per tick on a fixed
 * grid makes every step exactly the interval, however late a busy machine
 * sent the probes: a burst is a step under it, a hole a step over it.
 */
function dueSteps(rows: Row[]): number[] {
  const due = rows.map((r) => r.scheduledT).sort((x, y) => x - y);
  return due.slice(1).map((d, i) => d - due[i]!);
}

describe("B's outage", () => {
  it("best-of-two carries on; B fails at 1 Hz and recovers; A is untouched", { timeout: 120_000 }, async () => {
    const page = await browser().context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${a.url}/`);
    await page.waitForFunction(() => (window as unknown as { tailprobe?: object }).tailprobe !== undefined, undefined, {
      timeout: 10_000,
    });
    const startMs = Date.now();

    await page.waitForTimeout(BEFORE_MS);
    const killMs = Date.now();
    await b.kill();
    await slowA(OUTAGE_MS / 2 + 1000);
    await page.waitForTimeout(OUTAGE_MS / 2);
    await slowA(OUTAGE_MS / 2);
    await page.screenshot({ path: artifactPath("outage-probe-page.png"), fullPage: true });
    await page.waitForTimeout(OUTAGE_MS / 2);
    const restartMs = Date.now();
    b = await startServerProcess(["--name", "B", "--no-ping", "--port", String(b.port)], { dbPath: b.dbPath });
    const backMs = Date.now();
    await page.waitForTimeout(AFTER_MS);
    const endMs = Date.now();
    // Everything sent before endMs reaches A's database before we look; the
    // pause lets probes sent just before endMs settle (both servers are up now).
    await page.waitForTimeout(2000);
    await waitForDelivered(page, a.dbPath);

    const db = new Database(a.dbPath, { readonly: true });
    // Raw samples are blocks (store version 7): read through the decoded TEMP view.
    const rows = loadSampleTables(db)
      .prepare(
        "SELECT t, method, target, ms, outcome, reason, flags, scheduled_t AS scheduledT FROM samples WHERE t >= ? AND t < ? ORDER BY t",
      )
      .all(startMs, endMs) as Row[];
    db.close();
    const of = (method: string, target: string, from = startMs, to = endMs) =>
      rows.filter((r) => r.method === method && r.target === target && r.t >= from && r.t < to);
    const summary: Record<string, unknown> = { killMs, restartMs, backMs };

    // 1. Best of two: no failures at all, and it kept its 1 Hz rhythm throughout.
    const best2 = of("best2", "A+B");
    expect(best2.length).toBeGreaterThanOrEqual((endMs - startMs) / 1000 - 3);
    expect(best2.filter(failedProbe), "failed races").toEqual([]);
    // A race is stored when both legs settled: those sent a timeout before the end all are.
    const settledRaces = of("best2", "A+B", startMs, endMs - TIMEOUT_MS - INTERVAL_MS);
    expect(
      dueSteps(settledRaces).filter((step) => step !== INTERVAL_MS),
      "best2 steps between due times",
    ).toEqual([]);
    summary.best2 = { races: best2.length, failures: 0 };

    // 2. During the outage every B probe fails, about once a second each: no burst, no gap.
    // The first second after the kill is left out: a probe already in flight may still land.
    const outFrom = killMs + 1000;
    const outTo = restartMs;
    const outageSeconds = (outTo - outFrom) / 1000;
    for (const method of ["xhr", "jsonp", "ws"]) {
      const down = of(method, "B", outFrom, outTo);
      expect(
        down.filter((r) => r.outcome === "ok"),
        `${method} B ok while B was dead`,
      ).toEqual([]);
      // The dead server must not push its probes into the cap. (A page-wide stall on
      // an overloaded machine may still skip a tick as "asleep"; that is not B's doing.)
      expect(
        down.filter((r) => r.reason === "outstanding-cap"),
        `${method} B capped`,
      ).toEqual([]);
      const failures = down.filter((r) => r.outcome === "timeout" || r.outcome === "error");
      expect(failures.length, `${method} B failures`).toBeGreaterThanOrEqual(down.length - 1);
      expect(down.length, `${method} B ticks`).toBeGreaterThanOrEqual(Math.floor(outageSeconds) - 2);
      expect(down.length, `${method} B ticks`).toBeLessThanOrEqual(Math.ceil(outageSeconds) + 2);
      expect(
        dueSteps(down).filter((step) => step !== INTERVAL_MS),
        `${method} B steps between due times`,
      ).toEqual([]);
      summary[`${method} B during outage`] = {
        failures: failures.length,
        records: down.length,
        seconds: outageSeconds.toFixed(1),
        reasons: [...new Set(down.map((r) => r.reason))],
      };
    }

    // 3. A is neither failing nor slower while B is down: against A while B was up, in this run.
    const aProbes = (from: number, to: number) => ["xhr", "jsonp", "ws"].flatMap((m) => of(m, "A", from, to));
    const aUp = [...aProbes(startMs + 2000, killMs), ...aProbes(backMs + RECOVERY_MS_MAX, endMs)];
    const aDuring = aProbes(outFrom, outTo);
    expect(aDuring.filter(failedProbe), "A failures during the outage").toEqual([]);
    expect(aDuring.length).toBeGreaterThanOrEqual(3 * (Math.floor(outageSeconds) - 2));
    const ms = (rs: Row[]) => rs.filter((r) => r.outcome === "ok").map((r) => r.ms!);
    const figures = (rs: Row[]) => ({
      n: ms(rs).length,
      p50: nearestRank(ms(rs), 50),
      p90: nearestRank(ms(rs), 90),
      p99: nearestRank(ms(rs), 99),
    });
    const up = figures(aUp);
    const during = figures(aDuring);
    const ratios = { p50: during.p50 / up.p50, p90: during.p90 / up.p90 };
    summary["A while B is up"] = up;
    summary["A while B is down"] = during;
    summary["A ratios (down / up)"] = ratios;
    console.log(`outage: A while B is up ${JSON.stringify(up)}, while B is down ${JSON.stringify(during)}`);
    expect(
      during.p50,
      `A's median while B is down, over ${A_P50_RATIO_MAX}× A's while B is up + ${A_SLACK_MS} ms`,
    ).toBeLessThanOrEqual(A_P50_RATIO_MAX * up.p50 + A_SLACK_MS);
    expect(
      during.p90,
      `A's p90 while B is down, over ${A_P90_RATIO_MAX}× A's while B is up + ${A_SLACK_MS} ms`,
    ).toBeLessThanOrEqual(A_P90_RATIO_MAX * up.p90 + A_SLACK_MS);
    // Not p99: of ~40 probes it is the slowest one, a single hiccup of a loaded
    // machine (271 against 5 × 48 ms was seen with one core busy); it is logged.

    // 4. B comes back by itself within a few seconds, every method, and stays ok.
    for (const method of ["xhr", "jsonp", "ws"]) {
      const after = of(method, "B", backMs, endMs);
      const firstOk = after.find((r) => r.outcome === "ok");
      expect(firstOk, `${method} B never recovered`).toBeDefined();
      expect(firstOk!.t - backMs, `${method} B recovery`).toBeLessThan(RECOVERY_MS_MAX);
      expect(
        after.filter((r) => r.t > firstOk!.t && failedProbe(r)),
        `${method} B failures after recovery`,
      ).toEqual([]);
      summary[`${method} B recovered after ms`] = firstOk!.t - backMs;
      if (method === "ws") {
        // The first echo on the new connection says so.
        expect(firstOk!.flags & FLAG.fresh, "first ws sample after the reconnect is flagged fresh").toBe(FLAG.fresh);
        expect(after.filter((r) => r.outcome === "ok" && r.flags & FLAG.fresh)).toHaveLength(1);
      }
    }

    // 5. The histogram page's panel tells the same story.
    const races = (await (await fetch(`${a.url}/api/races?from=${startMs}&to=${endMs}`)).json()) as RacesResponse;
    const share = (t: string) => races.availability.find((r) => r.target === t)?.share ?? Number.NaN;
    expect(share("A")).toBe(1);
    expect(share("A+B")).toBe(1);
    expect(share("B")).toBeLessThan(0.8);
    expect(share("B")).toBeGreaterThan(0.4);
    const race = races.best2.find((r) => r.target === "A+B")!;
    expect(race.failures).toBe(0);
    expect(race.wins.ws + race.wins.jsonp).toBe(race.count);
    summary.availability = races.availability;
    summary.best2Row = race;

    const hist = await browser().context.newPage();
    await hist.goto(`${a.url}/histogram?range=15m`);
    const bRow = hist.locator('#availability-table tbody tr[data-target="B"]');
    await bRow.waitFor({ timeout: 15_000 });
    const bCells = await bRow.locator("td").allInnerTexts();
    expect(Number(bCells[3]!.replace(/[^\d.]/g, ""))).toBeLessThan(100);
    const raceRow = hist.locator('#best2-table tbody tr[data-target="A+B"]');
    await raceRow.waitFor({ timeout: 15_000 });
    expect((await raceRow.locator("td").allInnerTexts())[2]).toBe("0");
    await hist.locator("#races").screenshot({ path: artifactPath("outage-races-panel.png") });
    await hist.close();
    await page.close();

    expect(pageErrors, pageErrors.join("\n")).toEqual([]);
    console.log(`outage summary: ${JSON.stringify(summary, null, 1)}`);
  });
});
