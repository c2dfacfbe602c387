// Many servers, one database: two tailprobe servers (separate processes) on
// one PostgreSQL, a Chromium probe page on each for 20 s. Each server stores
// what its own page reports, and both answer /api/stats for the whole
// deployment: both pages' samples, the same on either server.
// @lane waiting: asserts that both servers answer the same stats with both pages' samples: counts and equality.
import { describe, expect, it } from "vitest";
import type { StatsResponse } from "../../shared/contract/index.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";
import { pageSent, storedSeqs, testPostgres } from "../helpers/store-kinds.js";
import { postgresAvailable } from "../../testkit/postgres.js";

const RUN_MS = 20_000;

describe.skipIf(!postgresAvailable())("two servers on one PostgreSQL", () => {
  const servers: ServerProcess[] = [];
  const browser = browserForFile(async () => {
    for (const s of servers) await s.stop();
  });

  it("both servers' /api/stats show both pages' samples, equal", { timeout: 120_000 }, async () => {
    const url = await (await testPostgres()).createDatabase("two_servers");
    // Started together: the schema is created once, under the advisory lock.
    servers.push(
      ...(await Promise.all(
        ["A", "B"].map((name) => startServerProcess(["--name", name, "--no-ping"], { dbPath: url })),
      )),
    );
    const [a, b] = servers as [ServerProcess, ServerProcess];
    expect(a.output() + b.output()).not.toContain(new URL(url).password);
    const startMs = Date.now();
    const pages = await Promise.all(
      [a, b].map(async (s) => {
        const page = await browser().context.newPage();
        await page.goto(`${s.url}/`);
        await page.waitForFunction(
          () => (window as unknown as { tailprobe?: object }).tailprobe !== undefined,
          undefined,
          { timeout: 10_000 },
        );
        return page;
      }),
    );
    await pages[0]!.waitForTimeout(RUN_MS);
    const sent = await Promise.all(pages.map((p) => pageSent(p)));
    // Everything each page had emitted is stored once, whichever server took it.
    for (const { sent: n, sessionId } of sent)
      await waitFor(
        async () => ((await storedSeqs(url, sessionId)).distinct >= n ? true : undefined),
        20_000,
        `${n} samples of ${sessionId}`,
      );
    for (const p of pages) await p.close();
    const toMs = Date.now();

    const statsOf = async (s: ServerProcess) =>
      ((await (await fetch(`${s.url}/api/stats?from=${startMs - 60_000}&to=${toMs}`)).json()) as StatsResponse).rows;
    // Pages closing may still send a last batch: wait until both answers agree twice in a row.
    let answers: [StatsResponse["rows"], StatsResponse["rows"]] = [[], []];
    await waitFor(
      async () => {
        const before = JSON.stringify(answers);
        answers = [await statsOf(a), await statsOf(b)];
        return JSON.stringify(answers[0]) === JSON.stringify(answers[1]) && JSON.stringify(answers) === before
          ? true
          : undefined;
      },
      20_000,
      "both servers' stats to agree",
    );
    const [fromA, fromB] = answers;
    expect(fromA).toEqual(fromB);
    // Page on A probes target A, page on B target B: each server shows both.
    const targets = new Set(fromA.map((r) => r.target));
    expect([...targets]).toEqual(expect.arrayContaining(["A", "B"]));
    for (const target of ["A", "B"]) {
      const xhr = fromA.find((r) => r.method === "xhr" && r.target === target);
      // About one a second for 20 s; a slow shared machine may lose a few ticks at the start.
      expect(xhr?.count, `xhr ${target}`).toBeGreaterThanOrEqual(RUN_MS / 1000 - 5);
    }
    const total = fromA.reduce((n, r) => n + r.count + r.failures + r.skipped, 0);
    const stored = await Promise.all(sent.map(({ sessionId }) => storedSeqs(url, sessionId)));
    expect(stored.every((s) => s.n === s.distinct)).toBe(true);
    expect(total).toBeGreaterThan(0);
  });
});
