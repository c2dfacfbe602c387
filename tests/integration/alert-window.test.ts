// What alert rules read (server/query/alert-window.ts), on both stores:
// samples posted through the ingest API come back from the 5-minute rollups
// per bucket, series, client and sample population, with counts exact and
// the p99 within the rollups' 1 % of the brute-force nearest rank; hidden
// and late samples fall in the populations they belong to.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { PEER_PROBER_ID_PREFIX } from "../../server/health/peer-samples.js";
import { ON_TIME_LATE_MS, SAMPLE_MODES } from "../../server/query/alert-window.js";
import { quantile } from "../../shared/rollup.js";
import { percentileSorted } from "../../shared/stats.js";
import { mulberry32 as prng } from "../../shared/prng.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

const BUCKET_MS = 300_000;
const CLIENTS = ["client-alpha-0001", "client-beta-00002", "client-gamma-0003"];

interface Planted {
  t: number;
  method: string;
  target: string;
  client: string;
  ms: number | null;
  outcome: "ok" | "timeout" | "error" | "skipped";
  hidden: boolean;
  lateMs: number;
}

describe.each(STORE_KINDS)("alert windows (%s)", (kind) => {
  let server: RunningServer;
  const planted: Planted[] = [];
  const now = Date.now();
  const from = now - 22 * 60_000;

  beforeAll(async () => {
    server = await startInProcess([
      "--db",
      await freshDb(kind, "alert_window"),
      "--peer",
      "B=http://127.0.0.1:9",
      "--no-rate-limit",
    ]);
    const r = prng(39);
    for (const [ci, client] of CLIENTS.entries()) {
      const samples: object[] = [];
      let seq = 0;
      for (let t = from + ci * 37; t < now - 1000; t += 2000) {
        for (const [method, target] of [
          ["ws", "A"],
          ["xhr", "B"],
        ] as const) {
          const u = r();
          const outcome = u < 0.03 ? "timeout" : u < 0.05 ? "error" : u < 0.07 ? "skipped" : "ok";
          const ms = outcome === "ok" ? Math.round(Math.exp(1 + r() * 3 + (r() < 0.02 ? 3 : 0)) * 1000) / 1000 : null;
          // Client beta is a background tab (hidden), gamma's ticks are sometimes throttled (late).
          const hidden = ci === 1;
          const lateMs = ci === 2 && r() < 0.3 ? 700 + Math.round(r() * 200) : Math.round(r() * 20);
          planted.push({ t, method, target, client, ms, outcome, hidden, lateMs });
          samples.push({
            seq: seq++,
            t,
            method,
            target,
            outcome,
            ms: outcome === "timeout" ? 5000 : ms,
            ...(outcome === "skipped" ? { reason: "frozen" } : {}),
            lateMs,
            visibleAtSend: !hidden,
            visibleAtReply: !hidden,
          });
        }
      }
      for (let i = 0; i < samples.length; i += 500) {
        const res = await fetch(`${server.url}/api/samples`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ clientId: client, sessionId: `${client}-s`, samples: samples.slice(i, i + 500) }),
        });
        expect(res.status, await res.clone().text()).toBe(200);
      }
    }
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it("holds every bucket's counts exactly and its p99 within 1 %, per population", async () => {
    const rows = await server.store.alertBuckets(from, now);
    const firstBucket = from - (from % BUCKET_MS);
    expect([...rows.keys()].sort((a, b) => a - b)).toEqual(
      Array.from(
        { length: Math.floor((now - 1000 - firstBucket) / BUCKET_MS) + 1 },
        (_, i) => firstBucket + i * BUCKET_MS,
      ),
    );
    let checked = 0;
    for (const [start, bucket] of rows) {
      for (const row of bucket) {
        const mine = planted.filter(
          (p) =>
            p.t >= start &&
            p.t < start + BUCKET_MS &&
            p.method === row.method &&
            p.target === row.target &&
            p.client === row.clientKey,
        );
        expect(mine.length).toBeGreaterThan(0);
        SAMPLE_MODES.forEach((mode, m) => {
          const inMode = mine.filter((p) => {
            const onTime = p.lateMs <= ON_TIME_LATE_MS;
            return mode === "all" || (mode === "on-time" && onTime) || (mode === "visible" && onTime && !p.hidden);
          });
          const cell = row.cells[m]!;
          const ok = inMode.filter((p) => p.outcome === "ok").map((p) => p.ms!);
          expect(cell.lat.count, `${mode} ok`).toBe(ok.length);
          expect(cell.failures, `${mode} failures`).toBe(
            inMode.filter((p) => p.outcome === "timeout" || p.outcome === "error").length,
          );
          expect(cell.skipped, `${mode} skipped`).toBe(inMode.filter((p) => p.outcome === "skipped").length);
          if (ok.length === 0) return;
          const exact = percentileSorted(
            ok.sort((a, b) => a - b),
            99,
          )!;
          const got = quantile(cell.lat, 99)! / 1000;
          expect(Math.abs(got - exact) / exact, `${mode} p99 ${got} vs ${exact}`).toBeLessThanOrEqual(0.01);
          checked++;
        });
      }
    }
    expect(checked).toBeGreaterThan(20);
    // The hidden client has no visible samples; the throttled one fewer on-time than all.
    const all = [...rows.values()].flat();
    for (const r of all.filter((x) => x.clientKey === CLIENTS[1])) expect(r.cells[2]!.lat.count).toBe(0);
    const gamma = all.filter((x) => x.clientKey === CLIENTS[2]);
    expect(gamma.reduce((n, r) => n + r.cells[1]!.lat.count, 0)).toBeLessThan(
      gamma.reduce((n, r) => n + r.cells[0]!.lat.count, 0),
    );
  });

  it("reads only the buckets asked for, and knows the newest sample", async () => {
    const lastStart = now - 1000 - ((now - 1000) % BUCKET_MS);
    const rows = await server.store.alertBuckets(lastStart, now);
    expect([...rows.keys()]).toEqual([lastStart]);
    expect(await server.store.alertBuckets(now + BUCKET_MS, now + 2 * BUCKET_MS)).toEqual(new Map());
    const newest = Math.max(...planted.map((p) => p.t));
    expect(await server.store.newestSampleMs()).toBe(newest);
    // A server's own probes of its peers (a client id of its own) are newer, and no page: left out.
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        clientId: `${PEER_PROBER_ID_PREFIX}abcdefghijklmnopqrstuv`,
        sessionId: `${PEER_PROBER_ID_PREFIX}session-of-the-prober`,
        samples: [{ seq: 0, t: now, method: "ws", target: "B", ms: 2, outcome: "ok" }],
      }),
    });
    expect(res.status, await res.text()).toBe(200);
    expect(await server.store.newestSampleMs()).toBe(now);
    expect(await server.store.newestSampleMs(PEER_PROBER_ID_PREFIX)).toBe(newest);
  });
});
