// Issue 39's outage, told: A and B as separate processes, a Chromium page on
// A probing both, every server with the same --notify webhook (a receiver in
// this test). B is killed with SIGKILL: TargetDown for B must reach the
// webhook within 15 s, once, with a verdict naming the server; B restarted on
// its port and database: resolved within 30 s, once; nothing for A or
// best-of-two, ever. Then the same with both servers on one PostgreSQL.
import { describe, expect, it } from "vitest";
import type { WebhookPayload } from "../../server/alerts/notify/payloads.js";
import { postgresAvailable } from "../../testkit/postgres.js";
import { startServerProcess, type ServerProcess, waitForPeerName } from "../../testkit/server-process.js";
import { browserForFile } from "../helpers/e2e-fixture.js";
import { testPostgres } from "../helpers/store-kinds.js";
import { startWebhookSink, type WebhookSink } from "../helpers/webhook-sink.js";

/** Probing before the kill: the health monitor knows both servers up. */
const BEFORE_MS = 15_000;
/** The brief's bounds: kill → firing, restart → resolved (ms). */
const FIRING_WITHIN_MS = 15_000;
const RESOLVED_WITHIN_MS = 30_000;
/** After the resolved message, nothing more may arrive for this long (ms). */
const QUIET_AFTER_MS = 10_000;

const KINDS = postgresAvailable() ? (["sqlite", "postgres"] as const) : (["sqlite"] as const);

const servers: ServerProcess[] = [];
const sinks: WebhookSink[] = [];
const browser = browserForFile(async () => {
  for (const s of servers) await s.stop();
  for (const s of sinks) await s.close();
});

const payloads = (s: WebhookSink) => s.posts.map((p) => p.body as WebhookPayload);

describe.each(KINDS)("TargetDown through --notify (%s)", (kind) => {
  it("fires once within 15 s of B's kill with the server's verdict, resolves once within 30 s of its restart", {
    timeout: 180_000,
  }, async () => {
    const hook = await startWebhookSink();
    sinks.push(hook);
    const notify = ["--notify", `${hook.url}/tailprobe`];
    const pg = kind === "postgres" ? await (await testPostgres()).createDatabase("alerts_outage") : undefined;
    const db = pg !== undefined ? { dbPath: pg } : {};
    let b = await startServerProcess(["--name", "B", "--no-ping", ...notify], db);
    servers.push(b);
    const a = await startServerProcess(["--name", "A", "--no-ping", "--peer", `B=${b.url}`, ...notify], db);
    servers.push(a);
    await waitForPeerName(a, "B");

    const page = await browser().context.newPage();
    await page.goto(`${a.url}/`);
    await page.waitForFunction(() => (window as unknown as { tailprobe?: object }).tailprobe !== undefined, undefined, {
      timeout: 10_000,
    });
    await page.waitForTimeout(BEFORE_MS);
    expect(payloads(hook), "alerts before the kill").toEqual([]);

    const killMs = Date.now();
    await b.kill();
    const [firing] = await hook.waitForPosts(1, FIRING_WITHIN_MS + 5_000);
    const firingAfterMs = firing!.atMs - killMs;
    const f = firing!.body as WebhookPayload;
    expect(f.status).toBe("firing");
    expect(f.commonLabels).toMatchObject({ alertname: "TargetDown", target: "B" });
    expect(f.alerts[0]!.annotations.verdict).toBe("server");
    expect(f.alerts[0]!.annotations.summary).toMatch(/^B down/);
    expect(firingAfterMs, "kill → firing (ms)").toBeLessThanOrEqual(FIRING_WITHIN_MS);

    await page.waitForTimeout(5_000);
    const restartMs = Date.now();
    b = await startServerProcess(["--name", "B", "--no-ping", "--port", String(b.port), ...notify], {
      dbPath: pg ?? b.dbPath,
    });
    servers.push(b);
    const [, resolved] = await hook.waitForPosts(2, RESOLVED_WITHIN_MS + 5_000);
    const resolvedAfterMs = resolved!.atMs - restartMs;
    const r = resolved!.body as WebhookPayload;
    expect(r.status).toBe("resolved");
    expect(r.alerts[0]!.fingerprint).toBe(f.alerts[0]!.fingerprint);
    expect(Date.parse(r.alerts[0]!.endsAt)).toBeGreaterThan(Date.parse(r.alerts[0]!.startsAt));
    expect(resolvedAfterMs, "restart → resolved (ms)").toBeLessThanOrEqual(RESOLVED_WITHIN_MS);

    // Once each, and nothing about A or best-of-two (nor anything else) meanwhile or after.
    await page.waitForTimeout(QUIET_AFTER_MS);
    expect(payloads(hook).map((p) => [p.status, p.commonLabels.alertname, p.commonLabels.target])).toEqual([
      ["firing", "TargetDown", "B"],
      ["resolved", "TargetDown", "B"],
    ]);
    await page.close();
    console.log(
      `${kind}: kill → firing ${firingAfterMs} ms, restart → resolved ${resolvedAfterMs} ms; summary: ${f.alerts[0]!.annotations.summary}`,
    );
  });
});
