// PostgreSQL stopped for 15 s under a running probe page, then started
// again: the server answers ingest 503 + Retry-After meanwhile, the page's
// outbox keeps its samples and sends them once the database is back, and
// every tick the page recorded is stored exactly once.
import { describe, expect, it } from "vitest";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";
import { pageSent, storedSeqs, testPostgres } from "../helpers/store-kinds.js";
import { postgresAvailable } from "../../testkit/postgres.js";

const BEFORE_MS = 5_000;
const OUTAGE_MS = 15_000;
/** After the restart: the outbox's backoff and the backlog's delivery (ms, bounded wait). */
const CATCH_UP_MS_MAX = 45_000;

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
    await page.waitForTimeout(OUTAGE_MS);
    // The server answered 503 and kept echoing: the page's probes went on.
    const during = await pageSent(page);
    expect(during.sent).toBeGreaterThan(before.sent);
    expect(server.output()).toMatch(/ingest failing, PG_UNREACHABLE/);
    await pg.startServer();

    const after = await pageSent(page);
    await waitFor(
      async () => ((await storedSeqs(url, after.sessionId)).distinct >= after.sent ? true : undefined),
      CATCH_UP_MS_MAX,
      `${after.sent} samples stored`,
    );
    const stored = await storedSeqs(url, after.sessionId);
    // Exactly once: no row twice, and no seq missing between the first and the last.
    expect(stored.n).toBe(stored.distinct);
    expect(stored.span).toBe(stored.distinct);
    expect(stored.distinct).toBeGreaterThanOrEqual(after.sent);
    expect(server.output()).toMatch(/storage works again/);
    expect(server.output()).not.toContain(new URL(url).password);
  });
});
