// Hostile batches the contract refuses whole, on both stores: a label that is
// not well-formed Unicode, samples whose fields do not go together (a pair
// no page or server produces, which would otherwise make bogus series in
// /api/stats and /metrics), and an unknown batch-level key whose name is
// huge (the answer must not echo it back in full). Nothing of them is stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BATCH_SAMPLES_MAX,
  REJECTED_ERROR_CHARS_MAX,
  sampleRefusalSchema,
  type StatsResponse,
} from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, selectAll, STORE_KINDS } from "../helpers/store-kinds.js";

const DAY_MS = 86_400_000;

describe.each(STORE_KINDS)("hostile batches, %s store", (kind) => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  // One server, no peer: its best-of-two target is A+A.
  beforeAll(async () => {
    server = await startInProcess(["--db", await freshDb(kind, "hostile_ingest"), "--name", "A", "--no-rate-limit"]);
  });
  afterAll(async () => {
    await server?.close();
  });

  const now = Date.now();
  let n = 0;
  const post = (body: unknown) =>
    fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const ids = () => ({ clientId: `client_hostile_${++n}`, sessionId: `session_hostile_${n}` });
  const sample = (seq: number, o: Record<string, unknown> = {}) => ({
    seq,
    t: now - 60_000,
    method: "xhr",
    target: "A",
    ms: 3,
    outcome: "ok",
    ...o,
  });
  const sessionsNamed = async (sessionId: string) =>
    (
      await selectAll<{ n: number }>(server, "SELECT count(*) AS n FROM sessions WHERE session_key = ?", [sessionId])
    )[0]!.n;
  const series = async () =>
    ((await (await fetch(`${server.url}/api/stats?from=${now - DAY_MS}&to=${now}`)).json()) as StatsResponse).rows.map(
      (r) => `${r.method} ${r.target}`,
    );

  describe("labels and strings", () => {
    it.each([
      ["a lone high surrogate", '"x\\ud800"'],
      ["a lone low surrogate", '"\\udc00x"'],
      ["a low surrogate before a high one", '"\\udc00\\ud800"'],
    ])("refuses a label with %s: 400, nothing stored", async (_what, labelJson) => {
      const { clientId, sessionId } = ids();
      const res = await post(
        `{"clientId":"${clientId}","sessionId":"${sessionId}","label":${labelJson},"samples":[${JSON.stringify(sample(0))}]}`,
      );
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "INVALID_BATCH", error: expect.stringMatching(/^label: /) });
      expect(await sessionsNamed(sessionId)).toBe(0);
    });

    it("stores a label of astral characters (well-formed pairs) and reads it back as sent", async () => {
      const { clientId, sessionId } = ids();
      const label = "😀 ünï 日本";
      expect((await post({ clientId, sessionId, label, samples: [sample(0)] })).status).toBe(200);
      const [row] = await selectAll<{ label: string }>(server, "SELECT label FROM sessions WHERE session_key = ?", [
        sessionId,
      ]);
      expect(row?.label).toBe(label);
    });
  });

  describe("fields that do not go together", () => {
    it.each([
      ["xhr to a best-of-two pair", { target: "A+A" }, /^target: /],
      ["best2 to a single server", { method: "best2", target: "A" }, /^target: /],
      ["ws to a best-of-two pair", { method: "ws", target: "A+A" }, /^target: /],
      ["an ok sample with a reason", { reason: "network" }, /^reason: /],
      ["a skipped sample with an HTTP reason", { ms: null, outcome: "skipped", reason: "http-5xx" }, /^reason: /],
      ["an error with a skip reason", { ms: null, outcome: "error", reason: "frozen" }, /^reason: /],
      ["a ws error with an HTTP reason", { method: "ws", ms: null, outcome: "error", reason: "http-5xx" }, /^reason: /],
      ["an xhr error with a ping reason", { ms: null, outcome: "error", reason: "icmp-unreachable" }, /^reason: /],
      ["a ping skipped as frozen", { method: "ping", ms: null, outcome: "skipped", reason: "frozen" }, /^reason: /],
      ["a tcprtt timeout late-reply", { method: "tcprtt", outcome: "timeout", reason: "late-reply" }, /^reason: /],
      ["scheduledT 20 days before t with lateMs 0", { scheduledT: now - 60_000 - 20 * DAY_MS, lateMs: 0 }, /^lateMs: /],
      ["scheduledT 20 days before t", { scheduledT: now - 60_000 - 20 * DAY_MS }, /^scheduledT: /],
      [
        "scheduledT a day and a minute after t",
        { t: now - 2 * DAY_MS, scheduledT: now - DAY_MS + 60_000 },
        /^scheduledT: /,
      ],
      ["lateMs 500 on a tick 3 ms late", { scheduledT: now - 60_003, lateMs: 500 }, /^lateMs: /],
      [
        "a best2 race won with a reason and the other leg ok",
        { method: "best2", target: "A+A", winner: "ws", otherMs: 5, otherOutcome: "ok", reason: "network" },
        /^reason: /,
      ],
      [
        "a best2 timeout with a winner",
        { method: "best2", target: "A+A", outcome: "timeout", ms: 5000, winner: "ws", otherOutcome: "timeout" },
        /^winner: /,
      ],
      [
        "a best2 race whose other leg failed but has a latency",
        { method: "best2", target: "A+A", winner: "ws", otherMs: 5, otherOutcome: "error" },
        /^otherMs: /,
      ],
      [
        "a best2 race whose other leg was skipped",
        { method: "best2", target: "A+A", winner: "ws", otherMs: null, otherOutcome: "skipped" },
        /^otherOutcome: /,
      ],
    ])("refuses %s, naming it, and stores nothing", async (_what, bad, message) => {
      const { clientId, sessionId } = ids();
      const before = await series();
      const res = await post({ clientId, sessionId, samples: [sample(0), sample(1, bad)] });
      const text = await res.text();
      expect(res.status, text).toBe(400);
      const body = sampleRefusalSchema.parse(JSON.parse(text));
      expect(body.rejected).toEqual([{ index: 1, seq: 1, error: expect.stringMatching(message) }]);
      expect(await sessionsNamed(sessionId)).toBe(0);
      expect(await series()).toEqual(before);
    });

    it.each([
      ["a probe sent 3 ms late", { scheduledT: now - 60_003, lateMs: 3 }],
      ["a probe sent on time", { scheduledT: now - 60_000, lateMs: 0 }],
      ["a probe whose clock stepped back 5 ms", { scheduledT: now - 59_995, lateMs: 0 }],
      ["a tick skipped at its due time", { ms: null, outcome: "skipped", reason: "frozen", scheduledT: now - 60_000 }],
      [
        "an outstanding-cap skip 400 ms after due",
        { ms: null, outcome: "skipped", reason: "outstanding-cap", scheduledT: now - 60_400 },
      ],
      ["an xhr 503", { ms: null, outcome: "error", reason: "http-5xx" }],
      ["a jsonp without callback", { method: "jsonp", ms: null, outcome: "error", reason: "no-callback" }],
      ["a ws probe closed", { method: "ws", ms: null, outcome: "error", reason: "ws-closed" }],
      ["a page closed mid-probe", { method: "ws", ms: null, outcome: "error", reason: "page-closed" }],
      ["a blocked server", { method: "jsonp", ms: null, outcome: "error", reason: "mixed-content" }],
      [
        "a best2 race won, the JSONP leg blocked",
        { method: "best2", target: "A+A", winner: "ws", otherMs: null, otherOutcome: "error", reason: "mixed-content" },
      ],
      [
        "a best2 race won, both legs answered",
        { method: "best2", target: "A+A", winner: "jsonp", otherMs: 9, otherOutcome: "ok" },
      ],
      [
        "a best2 race lost to a timeout and a closed socket",
        {
          method: "best2",
          target: "A+A",
          ms: 5000,
          outcome: "timeout",
          otherMs: null,
          otherOutcome: "timeout",
          reason: "ws-closed",
        },
      ],
      ["a ping late reply", { method: "ping", outcome: "timeout", ms: 5000, reason: "late-reply" }],
      ["a ping waiting for capacity", { method: "ping", ms: null, outcome: "skipped", reason: "ping-capacity" }],
      ["a wsping frame abandoned", { method: "wsping", ms: null, outcome: "skipped", reason: "ws-closed" }],
      ["a tcprtt with ss busy", { method: "tcprtt", ms: null, outcome: "error", reason: "ss-busy" }],
    ])("accepts %s", async (_what, good) => {
      const res = await post({ ...ids(), samples: [sample(0, good)] });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toEqual({ accepted: 1, duplicates: 0 });
    });
  });

  it("echoes at most 300 characters of an unknown batch-level key of 900 kB, and stores nothing", async () => {
    const { clientId, sessionId } = ids();
    const key = "k".repeat(900_000);
    const res = await post(
      `{"clientId":"${clientId}","sessionId":"${sessionId}","${key}":1,"samples":[${JSON.stringify(sample(0))}]}`,
    );
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(REJECTED_ERROR_CHARS_MAX + 100);
    const body = JSON.parse(text) as { error: string; code: string };
    expect(body.code).toBe("INVALID_BATCH");
    expect(body.error).toMatch(/unrecognized key/i);
    expect(body.error.length).toBeLessThanOrEqual(REJECTED_ERROR_CHARS_MAX);
    expect(await sessionsNamed(sessionId)).toBe(0);
  });

  it("caps every envelope error: a batch of too many samples, each a long string", async () => {
    const res = await post({ ...ids(), samples: Array.from({ length: BATCH_SAMPLES_MAX + 1 }, () => "s".repeat(500)) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string };
    expect(body.error.length).toBeLessThanOrEqual(REJECTED_ERROR_CHARS_MAX);
  });
});
