// Delivery is idempotent on (sessionId, seq), as README and docs/api.md
// promise: a sample re-sent with the same seq counts once, whatever `t` the
// second copy carries (a reloaded page, a restored outbox, a buggy client),
// in the same 5-minute bucket, in another one, on another day (another
// PostgreSQL partition), alone or beside new samples. Checked where a
// sample can count: the answer, /api/stats on the exact path and on the
// rollups, /metrics' running totals, and the export.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withQueries } from "../../server/query/with-queries.js";
import type { Sample } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe.each(STORE_KINDS)("redelivery with another t (%s store)", (kind) => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    server = await startInProcess(["--db", await freshDb(kind, "redelivery")]);
  });
  afterAll(async () => {
    await server.close();
  });

  // Two days back, at a whole minute: every copy below stays inside the raw retention.
  const T0 = Math.floor((Date.now() - 2 * DAY_MS) / 60_000) * 60_000;
  const from = T0 - DAY_MS;
  const to = T0 + 2 * DAY_MS;

  const sample = (seq: number, t: number, ms: number): Sample => ({
    seq,
    t,
    method: "xhr",
    target: "A",
    ms,
    outcome: "ok",
  });

  async function post(sessionId: string, samples: Sample[]): Promise<unknown> {
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ clientId: `client_${sessionId}`, sessionId, samples }),
    });
    expect(res.status).toBe(200);
    return res.json();
  }

  /** What each reader counts for the xhr series of the session's client. */
  async function counted(sessionId: string) {
    const clientId = `client_${sessionId}`;
    const filter = { fromMs: from, toMs: to, clientId };
    const exact = withQueries(server.store, { answerFrom: "raw" });
    const rollups = withQueries(server.store, { answerFrom: "rollups" });
    const csv = await (await fetch(`${server.url}/api/samples.csv?from=${from}&to=${to}`)).text();
    const [header, ...lines] = csv.trim().split("\n");
    const columns = header!.split(",");
    const exported = lines
      .map((l) => l.split(","))
      .filter((cells) => cells[columns.indexOf("sessionId")] === sessionId)
      .map((cells) => Number(cells[columns.indexOf("seq")]));
    return {
      exact: (await exact.stats(filter))[0]?.count ?? 0,
      rollups: (await rollups.stats(filter))[0]?.count ?? 0,
      exported: exported.sort((a, b) => a - b),
    };
  }

  /** /metrics' xhr count of target A: every session of this server's database. */
  async function metricsCount(): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const line = text.split("\n").find((l) => /^tailprobe_latency_seconds_count\{[^}]*method="xhr"/.test(l));
    return Number(line?.split(" ").at(-1) ?? 0);
  }

  it("counts a seq re-sent with a t 899 ms later once (same 5-minute bucket)", async () => {
    const before = await metricsCount();
    expect(await post("same_bucket", [sample(7, T0 + 1, 1)])).toEqual({ accepted: 1, duplicates: 0 });
    expect(await post("same_bucket", [sample(7, T0 + 900, 900)])).toEqual({ accepted: 0, duplicates: 1 });
    expect(await counted("same_bucket")).toEqual({ exact: 1, rollups: 1, exported: [7] });
    expect(
      (
        await withQueries(server.store, { answerFrom: "raw" }).stats({
          fromMs: from,
          toMs: to,
          clientId: "client_same_bucket",
        })
      )[0],
    ).toMatchObject({ min: 1, max: 1 });
    expect(await metricsCount()).toBe(before + 1);
  });

  it("counts a seq re-sent an hour and a day later once (another bucket, another day)", async () => {
    const before = await metricsCount();
    expect(await post("other_days", [sample(7, T0, 5), sample(8, T0 + 1000, 6)])).toEqual({
      accepted: 2,
      duplicates: 0,
    });
    expect(await post("other_days", [sample(7, T0 + HOUR_MS, 50)])).toEqual({ accepted: 0, duplicates: 1 });
    expect(await post("other_days", [sample(8, T0 + DAY_MS, 60)])).toEqual({ accepted: 0, duplicates: 1 });
    // And earlier than first sent: the copy that arrives first is the one kept.
    expect(await post("other_days", [sample(8, T0 - DAY_MS + 1, 70)])).toEqual({ accepted: 0, duplicates: 1 });
    expect(await counted("other_days")).toEqual({ exact: 2, rollups: 2, exported: [7, 8] });
    expect(await metricsCount()).toBe(before + 2);
  });

  it("stores the new samples of a batch that also re-sends old ones, and counts each old one once", async () => {
    const before = await metricsCount();
    const first = Array.from({ length: 50 }, (_, i) => sample(i, T0 + i * 1000, 10 + i));
    expect(await post("mixed_batch", first)).toEqual({ accepted: 50, duplicates: 0 });
    // A restored outbox: seqs 40..59, the old ten with new times, ten new ones.
    const again = Array.from({ length: 20 }, (_, i) => sample(40 + i, T0 + 7 * HOUR_MS + i * 1000, 200 + i));
    expect(await post("mixed_batch", again)).toEqual({ accepted: 10, duplicates: 10 });
    const seqs = Array.from({ length: 60 }, (_, i) => i);
    expect(await counted("mixed_batch")).toEqual({ exact: 60, rollups: 60, exported: seqs });
    expect(await metricsCount()).toBe(before + 60);
  });
});
