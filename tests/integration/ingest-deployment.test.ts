// Samples must fit this deployment: dated near the server's clock, aimed at a
// server it knows. A refused batch names each bad sample and stores nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { RAW_DAYS_DEFAULT } from "../../server/store/retention.js";
import { SAMPLE_REASONS, sampleRefusalSchema } from "../../shared/contract/index.js";
import { reasonPairs } from "../../shared/contract/sample-pairs.js";
import { startInProcess } from "../helpers/in-process.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const NOW = Date.UTC(2026, 10, 23, 12);
const DAY = 86_400_000;
let server: RunningServer;
beforeAll(async () => {
  server = await startInProcess(["--name", "A", "--peer", "B=http://127.0.0.1:9", "--no-rate-limit"], [], {
    nowMs: () => NOW,
  });
});
afterAll(async () => {
  await server.close();
});

let sessions = 0;
function post(samples: unknown[]) {
  const n = ++sessions;
  return fetch(`${server.url}/api/samples`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ clientId: "client_deploy", sessionId: `session_deploy_${n}`, samples }),
  });
}
const stored = () =>
  (loadSampleTables(sqliteDb(server.store)).prepare("SELECT COUNT(*) AS n FROM samples").get() as { n: number }).n;
const sample = (seq: number, o: Record<string, unknown> = {}) => ({
  seq,
  t: NOW - 1000,
  method: "xhr",
  target: "A",
  ms: 3,
  outcome: "ok",
  ...o,
});

describe("deployment checks on ingest", () => {
  it.each([
    ["a year ahead", { t: NOW + 365 * DAY }, /ahead/],
    ["a day and a minute ahead", { t: NOW + DAY + 60_000 }, /ahead/],
    ["older than raw retention", { t: NOW - (RAW_DAYS_DEFAULT + 1) * DAY }, /retention/],
    ["scheduledT a year ahead", { scheduledT: NOW + 365 * DAY }, /scheduledT/],
    ["target Z, unknown here", { target: "Z" }, /not a server/],
    ["a best-of-two pair not ours", { method: "best2", target: "B+Z" }, /not a server/],
    [
      "a free-text reason",
      { ms: null, outcome: "error", reason: "server on fire" },
      /^reason: not a reason tailprobe knows/,
    ],
    [
      "an older page's reason",
      { ms: null, outcome: "error", reason: "http-503" },
      /^reason: not a reason tailprobe knows/,
    ],
  ])("refuses %s, naming it, and stores nothing", async (_what, bad, message) => {
    const before = stored();
    const res = await post([sample(0), sample(1, bad), sample(2)]);
    expect(res.status).toBe(400);
    const body = sampleRefusalSchema.parse(await res.json());
    expect(body.rejected).toEqual([{ index: 1, seq: 1, error: expect.stringMatching(message) }]);
    expect(stored()).toBe(before);
  });

  it.each([
    ["its own name", { target: "A" }],
    ["a peer's name", { target: "B" }],
    ["the best-of-two pair", { method: "best2", target: "A+B" }],
    ["a sample a day ahead (a fast client clock)", { t: NOW + DAY - 1000 }],
    ["a sample 29 days old", { t: NOW - 29 * DAY }],
  ])("accepts %s", async (_what, good) => {
    const res = await post([sample(0, good)]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ accepted: 1, duplicates: 0 });
  });

  it("accepts every reason of the vocabulary on a sample that carries it, and stores it as sent", async () => {
    const res = await post(
      SAMPLE_REASONS.map((reason, seq) => {
        const { method, outcome } = reasonPairs(reason)[0]!;
        const ms = outcome === "error" || outcome === "skipped" ? null : 3;
        return sample(seq, { method, target: method === "best2" ? "A+B" : "A", ms, outcome, reason });
      }),
    );
    expect(res.status).toBe(200);
    const rows = loadSampleTables(sqliteDb(server.store))
      .prepare(
        "SELECT reason FROM samples WHERE session = (SELECT id FROM sessions WHERE session_key = ?) ORDER BY seq",
      )
      .all(`session_deploy_${sessions}`) as { reason: string }[];
    expect(rows.map((r) => r.reason)).toEqual([...SAMPLE_REASONS]);
  });

  it("names every bad sample of a batch, with its seq when it has one, and a repeated seq", async () => {
    const before = stored();
    const res = await post([sample(0), { seq: "x" }, sample(2, { target: "Z" }), sample(3), sample(3), null]);
    expect(res.status).toBe(400);
    const body = sampleRefusalSchema.parse(await res.json());
    expect(body.rejected.map((r) => [r.index, r.seq])).toEqual([
      [1, null],
      [2, 2],
      [4, 3],
      [5, null],
    ]);
    expect(stored()).toBe(before);
  });
});

describe("the time window follows --raw-days", () => {
  it("a server keeping 60 days takes a 45-day-old sample and refuses a 61-day-old one", async () => {
    const flags = ["--name", "A", "--no-rate-limit", "--raw-days", "60", "--rollup-days", "400"];
    const long = await startInProcess(flags, [], { nowMs: () => NOW });
    try {
      const postTo = (t: number, seq: number) =>
        fetch(`${long.url}/api/samples`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ clientId: "client_long", sessionId: "session_long", samples: [sample(seq, { t })] }),
        });
      expect((await postTo(NOW - 45 * DAY, 0)).status).toBe(200);
      const old = await postTo(NOW - 61 * DAY, 1);
      expect(old.status).toBe(400);
      expect(sampleRefusalSchema.parse(await old.json()).rejected[0]!.error).toMatch(
        /older than the raw retention \(60 days\)/,
      );
    } finally {
      await long.close();
    }
  });
});
