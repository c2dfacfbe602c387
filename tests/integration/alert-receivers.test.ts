// Notifications to real HTTP receivers on loopback ports: each payload as its
// receiver reads it, one firing and one resolved message per alert, retried
// with growing gaps while the receiver refuses, hangs or is gone, and owed
// messages sent once after a restart, never twice.
import { afterEach, describe, expect, it } from "vitest";
import { startAlerts, type AlertService } from "../../server/alerts/alerts.js";
import { BUILTINS_DEFAULT } from "../../server/alerts/builtins.js";
import type { WebhookPayload } from "../../server/alerts/notify/payloads.js";
import { parseNotifyUrl, type ReceiverSpec } from "../../server/alerts/notify/receiver-url.js";
import type { AlertStateStore } from "../../server/store/alert-state.js";
import { memoryAlertState } from "../helpers/memory-alert-state.js";
import { downIncident, fakeHealthFeed } from "../helpers/fake-health.js";
import { startInProcess } from "../helpers/in-process.js";
import { startWebhookSink, type WebhookSink } from "../helpers/webhook-sink.js";

const open: { stop(): Promise<void> }[] = [];
const sinks: WebhookSink[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.stop();
  for (const s of sinks.splice(0)) await s.close();
});

async function sink(port = 0): Promise<WebhookSink> {
  const s = await startWebhookSink(port);
  sinks.push(s);
  return s;
}

function notify(url: string): ReceiverSpec {
  const r = parseNotifyUrl(url);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

async function alerts(
  receivers: ReceiverSpec[],
  o: { state?: AlertStateStore; tuning?: Parameters<typeof startAlerts>[1]["tuning"] } = {},
) {
  const health = fakeHealthFeed();
  const service: AlertService = await startAlerts(
    {
      rules: [],
      builtins: { ...BUILTINS_DEFAULT, tailLatencyHigh: false, noReportsAfterMs: null },
      notify: receivers,
      alertmanager: undefined,
    },
    {
      serverName: "A",
      queries: { alertBuckets: async () => new Map(), newestSampleMs: async () => null },
      state: o.state ?? memoryAlertState(),
      publicId: (k) => k,
      externalUrl: () => "http://127.0.0.1:8080",
      health: health.feed,
      log: () => {},
      tuning: { backoffFirstMs: 100, backoffMaxMs: 800, sendTimeoutMs: 2000, ...o.tuning },
    },
  );
  open.push(service);
  return { service, health };
}

describe("receivers", () => {
  it("webhook, ntfy and Slack each get one firing and one resolved message in their own format", async () => {
    const hook = await sink();
    const ntfy = await sink();
    const slack = await sink();
    const { health, service } = await alerts([
      notify(`http://user:pw@127.0.0.1:${hook.port}/alerts`),
      notify(`ntfy+http://:tk_abc@127.0.0.1:${ntfy.port}/ops`),
      notify(`slack+http://127.0.0.1:${slack.port}/hooks/T1`),
    ]);
    const start = Date.now() - 4000;
    health.emit("opened", downIncident({ start }));
    for (const s of [hook, ntfy, slack]) await s.waitForPosts(1, 5000);
    health.emit("closed", downIncident({ start, end: start + 3000 }));
    for (const s of [hook, ntfy, slack]) await s.waitForPosts(2, 5000);
    await service.dispatcher.idle();
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
    for (const s of [hook, ntfy, slack]) expect(s.posts).toHaveLength(2);

    const [firing, resolved] = hook.posts.map((p) => p.body as WebhookPayload);
    expect(hook.posts[0]!.path).toBe("/alerts");
    expect(hook.posts[0]!.headers.authorization).toBe(`Basic ${Buffer.from("user:pw").toString("base64")}`);
    expect(hook.posts[0]!.headers["content-type"]).toBe("application/json");
    const labels = { alertname: "TargetDown", target: "B", severity: "critical" };
    expect(firing).toEqual({
      version: "4",
      groupKey: '{}:{alertname="TargetDown",target="B"}',
      truncatedAlerts: 0,
      status: "firing",
      receiver: "tailprobe",
      groupLabels: { alertname: "TargetDown", target: "B" },
      commonLabels: labels,
      commonAnnotations: {
        summary: "B down: failing from 3 of 3 clients and from A's own probe since 05:14:07",
        description: "verdict: server; 3 of 3 clients fail; A's own probe fails",
        verdict: "server",
        incident: "inc-1",
        observer: "A",
      },
      externalURL: "http://127.0.0.1:8080",
      alerts: [
        {
          status: "firing",
          labels,
          annotations: firing!.commonAnnotations,
          startsAt: new Date(start).toISOString(),
          endsAt: "0001-01-01T00:00:00Z",
          generatorURL: expect.stringMatching(
            /^http:\/\/127\.0\.0\.1:8080\/histogram\?range=custom&from=\d+&to=\d+&target=B$/,
          ),
          fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
        },
      ],
    });
    expect(resolved!.status).toBe("resolved");
    expect(resolved!.alerts[0]).toMatchObject({
      status: "resolved",
      startsAt: new Date(start).toISOString(),
      endsAt: new Date(start + 3000).toISOString(),
      fingerprint: firing!.alerts[0]!.fingerprint,
    });

    expect(ntfy.posts[0]!.path).toBe("/");
    expect(ntfy.posts[0]!.headers.authorization).toBe(`Basic ${Buffer.from(":tk_abc").toString("base64")}`);
    expect(ntfy.posts[0]!.body).toEqual({
      topic: "ops",
      title: "[FIRING] TargetDown B",
      message: expect.stringMatching(/^B down: failing from 3 of 3 clients.*\nverdict: server.*\nsince /s),
      tags: ["rotating_light"],
      priority: 4,
      click: firing!.alerts[0]!.generatorURL,
    });
    expect(ntfy.posts[1]!.body).toMatchObject({
      title: "[RESOLVED] TargetDown B",
      tags: ["white_check_mark"],
      priority: 3,
    });

    expect(slack.posts[0]!.path).toBe("/hooks/T1");
    const text = (slack.posts[0]!.body as { text: string }).text;
    expect(text).toMatch(
      /^:rotating_light: \*\[FIRING\] TargetDown B\*\nB down: failing from 3 of 3 clients and from A's own probe/,
    );
    expect(text).toContain("|open the histogram at that time>");
    expect((slack.posts[1]!.body as { text: string }).text).toMatch(
      /^:white_check_mark: \*\[RESOLVED\] TargetDown B\*/,
    );
  });

  it("retries with growing gaps while the receiver refuses, then delivers once", async () => {
    const hook = await sink();
    hook.mode = "fail";
    const state = memoryAlertState();
    const { health, service } = await alerts([notify(`${hook.url}/x`)], { state });
    health.emit("opened", downIncident());
    const deadline = Date.now() + 10_000;
    while (hook.refused.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(hook.refused.length).toBeGreaterThanOrEqual(5);
    hook.mode = "ok";
    await hook.waitForPosts(1, 5000);
    await service.dispatcher.idle();
    const gaps = hook.refused.slice(1, 5).map((t, i) => t - hook.refused[i]!);
    // Backoff 100, 200, 400, 800 ms, each ±20 % jitter: every gap at least its backoff's lower
    // bound (a loaded machine only lengthens them), so the fourth is at least 8× the first's bound.
    [100, 200, 400, 800].forEach((backoffMs, k) =>
      expect(gaps[k], `gap ${k}`).toBeGreaterThanOrEqual(0.8 * backoffMs - 5),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.posts).toHaveLength(1);
    const [row] = await state.load();
    expect(Object.values(row!.sent)).toEqual(["firing"]);
  });

  it("a receiver that hangs costs a timeout, and one that is gone is found again on its port", async () => {
    const hook = await sink();
    hook.mode = "hang";
    const { health, service } = await alerts([notify(`${hook.url}/x`)], { tuning: { sendTimeoutMs: 300 } });
    health.emit("opened", downIncident());
    const deadline = Date.now() + 5000;
    while (hook.refused.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(hook.refused.length).toBeGreaterThanOrEqual(2); // the first attempt timed out and was retried
    // Gone: the port refuses connections; back after a second on the same port.
    const port = hook.port;
    await hook.close();
    sinks.splice(sinks.indexOf(hook), 1);
    await new Promise((r) => setTimeout(r, 1000));
    const back = await sink(port);
    await back.waitForPosts(1, 5000);
    await service.dispatcher.idle();
    expect(back.posts).toHaveLength(1);
    expect((back.posts[0]!.body as WebhookPayload).status).toBe("firing");
  });

  it("after a restart, nothing delivered is sent again and what was owed is sent once", async () => {
    const hook = await sink();
    const state = memoryAlertState();
    const first = await alerts([notify(`${hook.url}/x`)], { state });
    first.health.emit("opened", downIncident({ id: "i1", target: "B" }));
    await hook.waitForPosts(1, 5000);
    await first.service.dispatcher.idle();
    // C goes down while the receiver is down: its firing is owed when this server stops.
    hook.mode = "fail";
    first.health.emit("opened", downIncident({ id: "i2", target: "C" }));
    while (hook.refused.length < 1) await new Promise((r) => setTimeout(r, 20));
    await first.service.stop();
    hook.mode = "ok";

    const second = await alerts([notify(`${hook.url}/x`)], { state });
    await hook.waitForPosts(2, 5000);
    await second.service.dispatcher.idle();
    await new Promise((r) => setTimeout(r, 300));
    expect(
      hook.posts.map((p) => [(p.body as WebhookPayload).status, (p.body as WebhookPayload).commonLabels.target]),
    ).toEqual([
      ["firing", "B"],
      ["firing", "C"],
    ]);
    // The feed reopens B's incident after the restart: already firing, nothing sent. Then it closes: one resolved.
    second.health.emit("opened", downIncident({ id: "i1", target: "B" }));
    second.health.emit("closed", downIncident({ id: "i1", target: "B", end: Date.now() }));
    await hook.waitForPosts(3, 5000);
    await second.service.dispatcher.idle();
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.posts.map((p) => (p.body as WebhookPayload).status)).toEqual(["firing", "firing", "resolved"]);
  });
});

describe("a hanging receiver and the echo paths", () => {
  it("the server answers /echo and ingest while its only receiver hangs on a message", async () => {
    const hook = await sink();
    hook.mode = "hang";
    const health = fakeHealthFeed();
    const server = await startInProcess(["--name", "A", "--notify", `${hook.url}/x`], [], {
      healthFeed: health.feed,
      alertTuning: { sendTimeoutMs: 60_000 },
    });
    open.push({ stop: () => server.close() });
    health.emit("opened", downIncident());
    const deadline = Date.now() + 5000;
    while (hook.refused.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(hook.refused).toHaveLength(1); // the message is in flight, unanswered
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${server.url}/echo`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const ingest = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        clientId: "hanging-receiver-client",
        sessionId: "hanging-receiver-session",
        samples: [{ seq: 0, t: Date.now(), method: "ws", target: "A", ms: 1.5, outcome: "ok" }],
      }),
    });
    expect(ingest.status).toBe(200);
    expect(hook.refused).toHaveLength(1); // still the one request, still hanging
  });
});
