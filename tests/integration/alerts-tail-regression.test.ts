// TailRegression through a real server (issue 40's alert): a page's 1 Hz
// samples to B posted through the ingest, the path to B 40 % slower from a
// moment on; a server on that database with --notify tells the webhook once
// per change found, with the change's verdict, and never again after a
// restart. Nothing fires for the series that did not move.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { WebhookPayload } from "../../server/alerts/notify/payloads.js";
import type { Sample } from "../../shared/contract/index.js";
import { BATCH_SAMPLES_MAX } from "../../shared/contract/samples.js";
import { mulberry32 as prng } from "../../shared/prng.js";
import { tempDir } from "../../testkit/server-process.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";
import { startWebhookSink, type WebhookSink } from "../helpers/webhook-sink.js";

const MINUTE_MS = 60_000;
const FIVE_MS = 5 * MINUTE_MS;
/** Three hours of the old level, then the shift 50 minutes ago, 2 minutes into a 5-minute bucket. */
const SHIFT_MS = Math.floor((Date.now() - 50 * MINUTE_MS) / FIVE_MS) * FIVE_MS + 2 * MINUTE_MS;
const START_MS = SHIFT_MS - 180 * MINUTE_MS;

/** XHR and ping to B (18 ms path, +8 ms from the shift) and WebSocket to A (unchanged), one tick a second. */
function ticks(fromMs: number, toMs: number, rand: () => number): Sample[] {
  const out: Sample[] = [];
  let seq = 0;
  const g = () => Math.exp(0.2 * Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
  const ms = (x: number) => Math.round(x * 1000) / 1000;
  for (let t = fromMs; t < toMs; t += 1000) {
    const path = 18 + (t >= SHIFT_MS ? 8 : 0);
    out.push({
      seq: seq++,
      t,
      method: "xhr",
      target: "B",
      outcome: "ok",
      ms: ms((path + 3.3) * g()),
      serverMs: ms(0.2 * g()),
    });
    out.push({ seq: seq++, t: t + 40, method: "ping", target: "B", outcome: "ok", ms: ms(path * g()) });
    out.push({ seq: seq++, t: t + 80, method: "ws", target: "A", outcome: "ok", ms: ms(1.2 * g()) });
  }
  return out;
}

const sinks: WebhookSink[] = [];
afterAll(async () => {
  for (const s of sinks) await s.close();
});

describe.each(STORE_KINDS)("TailRegression through --notify (%s)", (kind) => {
  it("tells the webhook once per change, with its verdict, and not again after a restart", {
    timeout: 180_000,
  }, async () => {
    const hook = await startWebhookSink();
    sinks.push(hook);
    const db = await freshDb(kind, "alerts_regression");
    const args = ["--db", db, "--no-rate-limit", "--peer", "B=http://127.0.0.1:9"];
    // Load the samples with alerts off (the change is found only once they are all in).
    const loader = await startInProcess([...args]);
    const samples = ticks(START_MS, Date.now() - 1000, prng(17));
    for (let i = 0; i < samples.length; i += BATCH_SAMPLES_MAX) {
      const res = await fetch(`${loader.url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          clientId: "regression-client",
          sessionId: "regression-session",
          samples: samples.slice(i, i + BATCH_SAMPLES_MAX),
        }),
      });
      expect(res.status, await res.text()).toBe(200);
    }
    await loader.close();

    // B is named but never runs: its outage is the health feed's business, not this test's.
    const rules = path.join(tempDir(), "rules.yml");
    fs.writeFileSync(rules, "builtins:\n  TargetDown: false\n");
    const notify = ["--notify", `${hook.url}/hook`, "--alerts", rules];
    let server = await startInProcess([...args, ...notify]);
    const posts = await hook.waitForPosts(2, 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    await server.close();
    const bodies = hook.posts.map((p) => p.body as WebhookPayload);
    const regressions = bodies.filter((b) => b.commonLabels.alertname === "TailRegression");
    expect(regressions.map((b) => [b.status, b.commonLabels.method, b.commonLabels.target]).sort()).toEqual([
      ["firing", "ping", "B"],
      ["firing", "xhr", "B"],
    ]);
    expect(posts.length).toBe(bodies.length);
    const xhr = regressions.find((b) => b.commonLabels.method === "xhr")!.alerts[0]!;
    expect(xhr.annotations.verdict).toBe("network");
    expect(xhr.annotations.description).toMatch(/the network path$/);
    expect(xhr.annotations.summary).toMatch(/^xhr B p\d\d [\d.]+ ms → [\d.]+ ms \(×[\d.]+\) at /);
    const changedAt = Date.parse(xhr.labels.changed_at!);
    expect(changedAt).toBeGreaterThan(SHIFT_MS - FIVE_MS);
    expect(changedAt).toBeLessThan(SHIFT_MS + 2 * FIVE_MS);
    expect(Date.parse(xhr.startsAt)).toBe(changedAt);
    // Nothing about the WebSocket to A, which did not move, nor anything else.
    expect(bodies.filter((b) => b.commonLabels.alertname !== "TailRegression")).toEqual([]);

    // Restarted on its database: the changes still stand and still fire, and nothing is sent twice.
    server = await startInProcess([...args, ...notify]);
    await new Promise((r) => setTimeout(r, 5000));
    await server.close();
    expect(hook.posts.length).toBe(bodies.length);
  });
});
