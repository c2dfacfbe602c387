// A change as the data arrives, through the real ingest on both stores: a
// page's 1 Hz samples posted to /api/samples, the network path to B 40 %
// slower from a moment on. /api/changes says nothing while fewer than 30
// minutes of the new level are stored, and names the change (at its time,
// told "network") once they are; the rollups it reads are the ones the ingest
// wrote, 5-minute and hour, with the newest hour still filling.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChangesResponse, Sample } from "../../shared/contract/index.js";
import { BATCH_SAMPLES_MAX } from "../../shared/contract/samples.js";
import { mulberry32 as prng } from "../../shared/prng.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

const MINUTE_MS = 60_000;
const FIVE_MS = 5 * MINUTE_MS;
/** Three hours of the old level, then the shift, 70 minutes ago (2 minutes into a 5-minute bucket). */
const SHIFT_MS = Math.floor((Date.now() - 70 * MINUTE_MS) / FIVE_MS) * FIVE_MS + 2 * MINUTE_MS;
const START_MS = SHIFT_MS - 180 * MINUTE_MS;

/** One tick a second from `fromMs` to `toMs`: XHR (with its server time) and ping to B, 18 ms path, +8 ms after the shift. */
function ticks(fromMs: number, toMs: number, seq: { n: number }, rand: () => number): Sample[] {
  const out: Sample[] = [];
  for (let t = fromMs; t < toMs; t += 1000) {
    const path = 18 + (t >= SHIFT_MS ? 8 : 0);
    const g = () => Math.exp(0.2 * Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
    const ms = (x: number) => Math.round(x * 1000) / 1000;
    out.push({
      seq: seq.n++,
      t,
      method: "xhr",
      target: "B",
      outcome: "ok",
      ms: ms((path + 3.3) * g()),
      serverMs: ms(0.2 * g()),
    });
    out.push({ seq: seq.n++, t: t + 40, method: "ping", target: "B", outcome: "ok", ms: ms(path * g()) });
  }
  return out;
}

describe.each(STORE_KINDS)("a change as the data arrives through the ingest (%s)", (kind) => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  const seq = { n: 0 };
  const rand = prng(17);
  let postedTo = START_MS;

  async function postUntil(toMs: number): Promise<void> {
    const samples = ticks(postedTo, toMs, seq, rand);
    postedTo = toMs;
    for (let i = 0; i < samples.length; i += BATCH_SAMPLES_MAX) {
      const res = await fetch(`${server.url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          clientId: "live-client-01",
          sessionId: "live-session-01",
          samples: samples.slice(i, i + BATCH_SAMPLES_MAX),
        }),
      });
      expect(res.status, await res.text()).toBe(200);
    }
  }

  const changes = async () => {
    const res = await fetch(`${server.url}/api/changes?from=${START_MS}&to=${Date.now()}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as ChangesResponse).changes;
  };

  beforeAll(async () => {
    server = await startInProcess([
      "--db",
      await freshDb(kind, "changes_live"),
      "--no-rate-limit",
      "--peer",
      "B=http://127.0.0.1:9",
    ]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("says nothing 20 minutes after the shift, names it 35 minutes after", async () => {
    await postUntil(SHIFT_MS + 20 * MINUTE_MS);
    expect(await changes()).toEqual([]);
    await postUntil(SHIFT_MS + 35 * MINUTE_MS);
    const found = await changes();
    expect(found.map((c) => c.method).sort()).toEqual(["ping", "xhr"]);
    for (const c of found) {
      expect(c.earliestT).toBeLessThanOrEqual(SHIFT_MS);
      expect(c.t + c.resolutionMs).toBeGreaterThan(SHIFT_MS);
      expect(c.resolutionMs).toBe(FIVE_MS);
      expect(c.client).toBeNull();
      expect(c.ratio).toBeGreaterThan(1.3);
    }
    const xhr = found.find((c) => c.method === "xhr")!;
    expect(xhr.verdict).toBe("network");
    expect(xhr.evidence).toMatch(/ping B rose by .*server time unchanged .*: the network path$/);
  }, 120_000);

  it("keeps it where it was as the next half hour arrives", async () => {
    const before = await changes();
    await postUntil(SHIFT_MS + 60 * MINUTE_MS);
    const after = await changes();
    expect(after.map((c) => [c.method, c.t, c.verdict])).toEqual(before.map((c) => [c.method, c.t, c.verdict]));
  }, 120_000);
});
