// PostgreSQL stopped for 15 s under a running probe page, then started
// again: the server answers ingest and queries 503 + Retry-After meanwhile,
// each within a second however long the outage has lasted; the first write
// and the first query after the restart succeed within 2 s of the database
// accepting connections; the page's outbox keeps its samples and sends them
// once the database is back, and every tick the page recorded is stored
// exactly once.
import { describe, expect, it } from "vitest";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";
import { pageSent, storedSeqs, testPostgres } from "../helpers/store-kinds.js";
import { postgresAvailable } from "../../testkit/postgres.js";

const BEFORE_MS = 5_000;
const OUTAGE_MS = 15_000;
/** After the restart: the outbox's backoff and the backlog's delivery (ms, bounded wait). */
const CATCH_UP_MS_MAX = 45_000;
/** While the database is away, a write or a query is told so within this (ms): docs/deployment.md. */
const OUTAGE_ANSWER_MS_MAX = 1000;
/** Once the database accepts connections again, the first write and query succeed within this (ms). */
const RECOVERY_MS_MAX = 2000;

/** A one-sample batch of a session of its own, as a page would post it. */
let probes = 0;
function batch(): string {
  const n = ++probes;
  return JSON.stringify({
    clientId: "client_restart_probe",
    sessionId: `session_restart_probe_${n}`,
    samples: [{ seq: 0, t: Date.now(), method: "xhr", target: "A", ms: 1, outcome: "ok" }],
  });
}

/** One request's status, Retry-After and time to its answer (ms). */
async function timed(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; retryAfter: string | null; ms: number }> {
  const start = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  await res.arrayBuffer();
  return { status: res.status, retryAfter: res.headers.get("retry-after"), ms: performance.now() - start };
}

describe.skipIf(!postgresAvailable())("PostgreSQL restarted under a running page", () => {
  let server: ServerProcess | undefined;
  const browser = browserForFile(async () => {
    await server?.stop();
  });

  it("stores every tick exactly once", { timeout: 150_000 }, async () => {
    const pg = await testPostgres();
    const url = await pg.createDatabase("restart");
    server = await startServerProcess(["--name", "A", "--no-ping"], { dbPath: url });
    const page = await browser().context.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => (window as unknown as { tailprobe?: object }).tailprobe !== undefined, undefined, {
      timeout: 10_000,
    });
    await page.waitForTimeout(BEFORE_MS);
    const before = await pageSent(page);
    await waitFor(
      async () => ((await storedSeqs(url, before.sessionId)).distinct >= before.sent ? true : undefined),
      10_000,
      "samples before the outage",
    );

    await pg.stopServer();
    const outageStart = performance.now();
    const post = () =>
      timed(`${server!.url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: batch(),
      });
    const stats = () => timed(`${server!.url}/api/stats?from=${Date.now() - 60_000}`);
    // Throughout the outage, not only at its start: the client library's reconnect backoff grows with every failure.
    const duringOutage: Awaited<ReturnType<typeof post>>[] = [];
    while (performance.now() - outageStart < OUTAGE_MS - 1000) {
      duringOutage.push(await post(), await stats());
      await page.waitForTimeout(1000);
    }
    console.log(
      `during the outage: ${duringOutage.length} answers, statuses ${[...new Set(duringOutage.map((r) => r.status))]}, ` +
        `slowest ${Math.max(...duringOutage.map((r) => r.ms)).toFixed(0)} ms`,
    );
    for (const r of duringOutage) {
      expect(r.status).toBe(503);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      expect(r.ms).toBeLessThan(OUTAGE_ANSWER_MS_MAX);
    }
    await page.waitForTimeout(Math.max(0, OUTAGE_MS - (performance.now() - outageStart)));
    // The server answered 503 and kept echoing: the page's probes went on.
    const during = await pageSent(page);
    expect(during.sent).toBeGreaterThan(before.sent);
    expect(server.output()).toMatch(/ingest failing, PG_UNREACHABLE/);
    // startServer resolves once PostgreSQL accepts connections (its log says so and a TCP connect succeeds).
    await pg.startServer();
    const back = performance.now();
    const firstOk = async (request: typeof post): Promise<number> => {
      for (;;) {
        const r = await request();
        if (r.status === 200) return performance.now() - back;
        expect(performance.now() - back, `still ${r.status} after the database came back`).toBeLessThan(30_000);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const [writeMs, queryMs] = await Promise.all([firstOk(post), firstOk(stats)]);
    console.log(`after the restart: first write ${writeMs.toFixed(0)} ms, first query ${queryMs.toFixed(0)} ms`);
    expect(writeMs).toBeLessThan(RECOVERY_MS_MAX);
    expect(queryMs).toBeLessThan(RECOVERY_MS_MAX);

    const after = await pageSent(page);
    await waitFor(
      async () => ((await storedSeqs(url, after.sessionId)).distinct >= after.sent ? true : undefined),
      CATCH_UP_MS_MAX,
      `${after.sent} samples stored`,
    );
    console.log(`the page's backlog stored ${((performance.now() - back) / 1000).toFixed(1)} s after the restart`);
    const stored = await storedSeqs(url, after.sessionId);
    // Exactly once: no row twice, and no seq missing between the first and the last.
    expect(stored.n).toBe(stored.distinct);
    expect(stored.span).toBe(stored.distinct);
    expect(stored.distinct).toBeGreaterThanOrEqual(after.sent);
    expect(server.output()).toMatch(/storage works again/);
    expect(server.output()).not.toContain(new URL(url).password);
  });
});
