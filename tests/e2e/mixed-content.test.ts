// A page served over HTTPS may not reach a plain-HTTP peer (mixed content).
// It must say so on the page, keep probing the servers it can reach, and
// record the blocked ones as errors with a reason, not fail silently.
// @lane waiting: asserts the page's warning and the blocked probes' reasons.
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { artifactPath } from "../../testkit/browser.js";
import { waitForDelivered } from "../../testkit/delivered.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";
import { makeSelfSignedCert } from "../helpers/tls.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const PROBE_MS = 6000;

let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  const cert = makeSelfSignedCert();
  b = await startServerProcess(["--name", "B", "--no-ping"]);
  a = await startServerProcess([
    "--name",
    "A",
    "--no-ping",
    "--tls-cert",
    cert.certPath,
    "--tls-key",
    cert.keyPath,
    "--peer",
    `B=${b.url}`,
  ]);
});

const browser = browserForFile(
  async () => {
    await a?.stop();
    await b?.stop();
  },
  { ignoreHTTPSErrors: true },
);

describe("HTTPS page, plain-HTTP peer", () => {
  it("explains on the page why B cannot be probed, and still probes A", { timeout: 60_000 }, async () => {
    expect(a.url).toMatch(/^https:/);
    expect(b.url).toMatch(/^http:/);
    const page = await browser().context.newPage();
    await page.goto(`${a.url}/`);
    const warning = page.locator("#warnings");
    await warning.waitFor({ state: "visible", timeout: 10_000 });
    const text = await warning.innerText();
    expect(text).toContain("mixed content");
    expect(text).toContain("B");
    expect(text).toContain(new URL(b.url).origin);
    expect(text).toMatch(/--tls-cert/);

    const startMs = Date.now();
    await page.waitForTimeout(PROBE_MS);
    await page.screenshot({ path: artifactPath("mixed-content-probe-page.png"), fullPage: true });
    // The live view shows B's probes failing for that reason, not hanging.
    const bWs = page.locator('#live-rows tr[data-method="ws"][data-target="B"]');
    await expect.poll(() => bWs.innerText()).toContain("mixed-content");
    await waitForDelivered(page, a.dbPath);
    await page.close();

    const db = new Database(a.dbPath, { readonly: true });
    // Raw samples are blocks (store version 7): read through the decoded TEMP view.
    const rows = loadSampleTables(db)
      .prepare("SELECT method, target, outcome, reason, winner FROM samples WHERE t >= ?")
      .all(startMs - 1000) as {
      method: string;
      target: string;
      outcome: string;
      reason: string | null;
      winner: string | null;
    }[];
    db.close();
    for (const method of ["xhr", "jsonp", "ws"]) {
      const onB = rows.filter((r) => r.method === method && r.target === "B");
      expect(onB.length, `${method} B`).toBeGreaterThanOrEqual(PROBE_MS / 1000 - 2);
      expect(
        onB.every((r) => r.outcome === "error" && r.reason === "mixed-content"),
        `${method} B`,
      ).toBe(true);
      // A, over HTTPS and WSS, answers as usual.
      const onA = rows.filter((r) => r.method === method && r.target === "A");
      expect(onA.length, `${method} A`).toBeGreaterThanOrEqual(PROBE_MS / 1000 - 2);
      // (A probe still in flight when the test closes the page is recorded as page-closed, by design.)
      expect(
        onA.filter((r) => r.outcome !== "ok" && r.reason !== "page-closed"),
        `${method} A`,
      ).toEqual([]);
    }
    // Best of two runs on its reachable leg alone: the WebSocket to A wins every race.
    const races = rows.filter((r) => r.method === "best2" && r.reason !== "page-closed");
    expect(races.length).toBeGreaterThanOrEqual(PROBE_MS / 1000 - 2);
    expect(races.every((r) => r.outcome === "ok" && r.winner === "ws")).toBe(true);
  });
});
