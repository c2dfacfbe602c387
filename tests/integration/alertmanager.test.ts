// --alertmanager against a real Prometheus Alertmanager (Debian's
// prometheus-alertmanager binary, unpacked by .ci/run without its service):
// a server with a health feed the test drives pushes TargetDown to
// Alertmanager's v2 API, re-posts it while it fires, and Alertmanager routes
// it to a webhook receiver here, the way it would to Slack or PagerDuty:
// firing, then resolved. Alertmanager's own webhook payload is also the
// reference for --notify's: the same fields.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { fingerprint } from "../../server/alerts/alert.js";
import { webhookPayload } from "../../server/alerts/notify/payloads.js";
import { freePort } from "../../testkit/free-port.js";
import { tempDir, waitFor } from "../../testkit/server-process.js";
import { downIncident, fakeHealthFeed } from "../helpers/fake-health.js";
import { startInProcess } from "../helpers/in-process.js";
import { startWebhookSink, type WebhookSink } from "../helpers/webhook-sink.js";

const run = promisify(execFile);
const BINARIES = ["prometheus-alertmanager", "alertmanager"];
const binary = (
  await Promise.all(
    BINARIES.map((b) =>
      run(b, ["--version"]).then(
        () => b,
        () => null,
      ),
    ),
  )
).find((b) => b !== null);
const inCi = process.env.CI !== undefined && process.env.CI !== "";
/** How often the server re-posts firing alerts in this test (ms); the default is a minute. */
const RESEND_MS = 1000;

let am: ChildProcess | undefined;
let amUrl = "";
let amLog = "";
let hook: WebhookSink;
let server: RunningServer;
const health = fakeHealthFeed();

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  updatedAt: string;
  status: { state: string };
}

beforeAll(async () => {
  if (binary === undefined) return;
  hook = await startWebhookSink();
  const port = await freePort();
  amUrl = `http://127.0.0.1:${port}`;
  const dir = tempDir("tailprobe-alertmanager-");
  fs.writeFileSync(
    path.join(dir, "alertmanager.yml"),
    [
      "route:",
      "  receiver: test",
      "  group_by: [alertname, target]",
      "  group_wait: 1s",
      "  group_interval: 1s",
      "  repeat_interval: 1h",
      "receivers:",
      "  - name: test",
      "    webhook_configs:",
      `      - url: ${hook.url}/from-alertmanager`,
      "        send_resolved: true",
      "",
    ].join("\n"),
  );
  am = spawn(
    binary,
    [
      `--config.file=${path.join(dir, "alertmanager.yml")}`,
      `--storage.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      // No cluster: it would listen for gossip on every interface.
      "--cluster.listen-address=",
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  am.stderr!.on("data", (d: Buffer) => (amLog = (amLog + d.toString()).slice(-4000)));
  await waitFor(
    async () => ((await fetch(`${amUrl}/-/ready`).catch(() => null))?.status === 200 ? true : undefined),
    20_000,
    `Alertmanager to start (its log: ${amLog})`,
  );
  server = await startInProcess(["--name", "A", "--alertmanager", amUrl], [], {
    healthFeed: health.feed,
    alertTuning: { resendMs: RESEND_MS },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  am?.kill("SIGTERM");
  await hook?.close();
});

async function amAlerts(): Promise<AmAlert[]> {
  return (await (await fetch(`${amUrl}/api/v2/alerts`)).json()) as AmAlert[];
}

describe("a real Alertmanager", () => {
  it.skipIf(binary === undefined && !inCi)(
    "routes tailprobe's TargetDown to its receiver, firing then resolved",
    {
      timeout: 60_000,
    },
    async () => {
      expect(binary, `none of ${BINARIES.join(", ")} on PATH (.ci/run unpacks it)`).toBeDefined();
      const start = Date.now() - 3000;
      health.emit("opened", downIncident({ start }));

      // Alertmanager holds it as active, its endsAt a few resends ahead (it resolves it alone if tailprobe dies).
      const active = await waitFor(
        async () => (await amAlerts()).find((a) => a.labels.alertname === "TargetDown"),
        10_000,
        "the alert in Alertmanager",
      );
      expect(active.labels).toEqual({ alertname: "TargetDown", target: "B", severity: "critical" });
      expect(active.annotations.verdict).toBe("server");
      expect(active.status.state).toBe("active");
      expect(Date.parse(active.startsAt)).toBe(start);
      expect(Date.parse(active.endsAt)).toBeGreaterThan(Date.now() + 2 * RESEND_MS);
      // Re-posted while it fires: Alertmanager's updatedAt moves on.
      const updated = await waitFor(
        async () => {
          const a = (await amAlerts()).find((x) => x.labels.alertname === "TargetDown");
          return a !== undefined && Date.parse(a.updatedAt) > Date.parse(active.updatedAt) ? a : undefined;
        },
        5 * RESEND_MS,
        "a re-post",
      );
      expect(updated.status.state).toBe("active");

      // Routed to the webhook receiver: firing.
      const [firing] = await hook.waitForPosts(1, 15_000);
      const body = firing!.body as ReturnType<typeof webhookPayload>;
      expect(firing!.path).toBe("/from-alertmanager");
      expect(body.status).toBe("firing");
      expect(body.alerts[0]!.labels).toEqual({ alertname: "TargetDown", target: "B", severity: "critical" });
      expect(body.alerts[0]!.annotations.summary).toContain("B down");
      // --notify's payload has Alertmanager's fields, no more, no fewer.
      const ours = webhookPayload(
        {
          type: "firing",
          fingerprint: "0",
          alert: { labels: {}, annotations: {}, startsAtMs: 0, endsAtMs: null, generatorUrl: "" },
        },
        "",
      );
      expect(Object.keys(ours).sort()).toEqual(Object.keys(body).sort());
      expect(Object.keys(ours.alerts[0]!).sort()).toEqual(Object.keys(body.alerts[0]!).sort());
      expect(body.version).toBe(ours.version);
      // Alertmanager's fingerprint of the label set is the one tailprobe computes.
      expect(body.alerts[0]!.fingerprint).toBe(fingerprint(body.alerts[0]!.labels));

      // The incident closes: tailprobe posts the real endsAt, Alertmanager sends resolved.
      const endMs = Date.now();
      health.emit("closed", downIncident({ start, end: endMs }));
      const posts = await hook.waitForPosts(2, 15_000);
      const resolved = posts.find((p) => (p.body as { status: string }).status === "resolved");
      expect(resolved, JSON.stringify(posts.map((p) => p.body))).toBeDefined();
      const r = (resolved!.body as ReturnType<typeof webhookPayload>).alerts[0]!;
      expect(r.status).toBe("resolved");
      expect(Date.parse(r.endsAt)).toBe(endMs);
    },
  );
});
