// Peers: names learned from the peer's /api/config or given with --peer NAME=URL,
// and an unreachable peer reported once. Races: GET /api/races against a
// brute-force computation over random samples sent through the real ingest path.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePeer } from "../../server/cli/options.js";
import type { Config, Sample, RacesResponse } from "../../shared/contract/index.js";
import { mulberry32 } from "../../shared/prng.js";
import { startInProcess } from "../helpers/in-process.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { waitFor } from "../../testkit/server-process.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";

type Server = Awaited<ReturnType<typeof startInProcess>>;
const started: Server[] = [];
async function start(args: string[], log: string[] = []): Promise<Server> {
  const s = await startInProcess(args, log);
  started.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

const serverNames = async (s: Server) =>
  ((await (await fetch(`${s.url}/api/config`)).json()) as Config).servers.map((x) => x.name);

describe("--peer values", () => {
  it.each([
    ["http://b.example:8080", { url: "http://b.example:8080", name: undefined }],
    ["https://b.example:8443/", { url: "https://b.example:8443", name: undefined }],
    ["B=https://b.example", { url: "https://b.example", name: "B" }],
    ["b_2.eu=http://[::1]:8081", { url: "http://[::1]:8081", name: "b_2.eu" }],
    // Behind a proxy that serves tailprobe under a path prefix.
    ["B=https://proxy.example/tailprobe/", { url: "https://proxy.example/tailprobe", name: "B" }],
  ])("accepts %s", (raw, want) => {
    expect(parsePeer(raw)).toEqual({ ok: true, value: want });
  });

  it.each([
    "b.example:8080",
    "ws://b.example",
    "B+C=http://b.example",
    "=http://b.example",
    "http://b.example/?x=1",
    "http://user@b.example",
    "B=",
  ])("refuses %s, naming the flag", (raw) => {
    const r = parsePeer(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/--peer/);
  });
});

describe("peers", () => {
  it("learns a peer's name from its /api/config", async () => {
    const b = await start(["--name", "Bee"]);
    const a = await start(["--name", "A", "--peer", b.url]);
    await waitFor(async () => ((await serverNames(a)).includes("Bee") ? true : undefined), 10_000, "A to learn Bee");
    expect(await serverNames(a)).toEqual(["A", "Bee"]);
  });

  it("--peer NAME=URL names the peer without asking, whatever it calls itself", async () => {
    const b = await start(["--name", "Bee"]);
    const a = await start(["--name", "A", "--peer", `B=${b.url}/`]);
    const cfg = (await (await fetch(`${a.url}/api/config`)).json()) as Config;
    expect(cfg.servers).toEqual([
      // A names its own stress test's load ports; a page asks B's for B's.
      { name: "A", url: "", stress: { downPort: expect.any(Number), upPort: expect.any(Number) } },
      { name: "B", url: b.url },
    ]);
  });

  it("says once that a peer cannot be reached, not on every retry", { timeout: 25_000 }, async () => {
    // A peer that takes each connection and hangs up at once: every attempt
    // to learn its name fails, and the test counts the attempts.
    let attempts = 0;
    const refusing = net.createServer((socket) => {
      attempts++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    try {
      const peerUrl = `http://127.0.0.1:${(refusing.address() as net.AddressInfo).port}`;
      const log: string[] = [];
      const a = await start(["--name", "A", "--peer", peerUrl], log);
      expect(await serverNames(a)).toEqual(["A", "B"]); // a placeholder until it answers
      // A third attempt starts only once the second has failed (5 s apart):
      // by then two failures and one retry have been handled.
      await waitFor(() => (attempts >= 3 ? true : undefined), 20_000, "three attempts to reach the peer");
      const complaints = log.filter((l) => l.includes(peerUrl) && l.includes("cannot be reached"));
      expect(complaints, `${attempts} attempts:\n${log.join("\n")}`).toHaveLength(1);
      expect(complaints[0]).toMatch(/--peer NAME=URL/);
    } finally {
      refusing.close();
    }
  });
});

// ---- /api/races against brute force ------------------------------------------

/**
 * A percentile from its definition, sharing nothing with the code's rank
 * arithmetic: the smallest value such that at least p % of all values are at
 * or below it. Counts are compared as integers (100·count ≥ p·n; p is 50 or
 * 99), so no rounding is involved.
 */
function bruteRank(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const candidates = [...new Set(values)].sort((x, y) => x - y);
  for (const v of candidates) {
    const atOrBelow = values.filter((x) => x <= v).length;
    if (atOrBelow * 100 >= p * values.length) return v;
  }
  return candidates[candidates.length - 1]!;
}

describe("GET /api/races", () => {
  let server: Server;
  const samples: (Sample & { clientId: string })[] = [];
  // An hour ago: the server stores only samples dated near its own clock.
  const T0 = Math.floor((Date.now() - 3_600_000) / 600_000) * 600_000;

  beforeAll(async () => {
    // B is named, so the server knows it (and A+B) as targets without asking it.
    server = await start(["--name", "A", "--peer", "B=http://127.0.0.1:9"]);
    const rnd = mulberry32(20101101);
    // Latencies are stored to the µs, so the fixture draws them at that resolution.
    const toUs = (ms: number) => Math.round(ms * 1000) / 1000;
    const latency = () => toUs(rnd() < 0.03 ? 200 + rnd() * 800 : 5 + rnd() * 40); // a planted tail
    const outcome = (okShare: number): Sample["outcome"] => {
      const u = rnd();
      return u < okShare ? "ok" : u < okShare + (1 - okShare) / 2 ? "timeout" : rnd() < 0.8 ? "error" : "skipped";
    };
    for (const clientId of ["client-races-1", "client-races-2"]) {
      const batch: Sample[] = [];
      for (let i = 0; i < 700; i++) {
        const t = T0 + Math.floor(rnd() * 600_000);
        const pick = rnd();
        let s: Sample;
        if (pick < 0.55) {
          const method = (["xhr", "jsonp", "ws"] as const)[Math.floor(rnd() * 3)]!;
          const target = rnd() < 0.5 ? "A" : "B";
          const o = outcome(target === "A" ? 0.97 : 0.6);
          s = { seq: i, t, method, target, outcome: o, ms: o === "ok" ? latency() : o === "timeout" ? 5000 : null };
        } else if (pick < 0.9) {
          const o = outcome(0.95);
          s = {
            seq: i,
            t,
            method: "best2",
            target: "A+B",
            outcome: o,
            ms: o === "ok" ? latency() : o === "timeout" ? 5000 : null,
          };
          if (o === "ok") {
            s.winner = rnd() < 0.6 ? "ws" : "jsonp";
            const otherOk = rnd() < 0.7;
            s.otherOutcome = otherOk ? "ok" : "timeout";
            s.otherMs = otherOk ? toUs(s.ms! + rnd() * 30) : null;
          }
        } else {
          // Baselines say nothing about a server's availability and must be left out.
          const o = outcome(0.5);
          s = {
            seq: i,
            t,
            method: "ping",
            target: "B",
            outcome: o,
            ms: o === "ok" ? latency() : o === "timeout" ? 5000 : null,
          };
        }
        batch.push(s);
        samples.push({ ...s, clientId });
      }
      const res = await fetch(`${server.url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ clientId, sessionId: `${clientId}-session`, samples: batch }),
      });
      expect(res.status).toBe(200);
    }
  });

  function brute(fromMs: number, toMs: number, clientId?: string): Pick<RacesResponse, "availability" | "best2"> {
    const inRange = samples.filter(
      (s) =>
        s.t >= fromMs &&
        s.t <= toMs &&
        (clientId === undefined || s.clientId === clientId) &&
        ["xhr", "jsonp", "ws", "best2"].includes(s.method),
    );
    const counted = inRange.filter((s) => s.outcome !== "skipped");
    const targets = [...new Set(counted.map((s) => s.target))].sort();
    const availability = targets.map((target) => {
      const ok = counted.filter((s) => s.target === target && s.outcome === "ok").length;
      const failures = counted.filter((s) => s.target === target && s.outcome !== "ok").length;
      return { target, ok, failures, share: ok / (ok + failures) };
    });
    const okOf = (method: string, target: string) =>
      counted.filter((s) => s.method === method && s.target === target && s.outcome === "ok").map((s) => s.ms!);
    const races = counted.filter((s) => s.method === "best2");
    const won = races.filter((s) => s.outcome === "ok");
    const ms = won.map((s) => s.ms!);
    const ws = okOf("ws", "A");
    const jsonp = okOf("jsonp", "B");
    const p = (v: number[], q: number) => bruteRank(v, q);
    const lower = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : Math.min(x, y));
    const best2 =
      races.length === 0
        ? []
        : [
            {
              target: "A+B",
              count: won.length,
              failures: races.length - won.length,
              wins: {
                ws: won.filter((s) => s.winner === "ws").length,
                jsonp: won.filter((s) => s.winner === "jsonp").length,
              },
              p50: p(ms, 50),
              p99: p(ms, 99),
              single: [
                { method: "ws" as const, target: "A", count: ws.length, p50: p(ws, 50), p99: p(ws, 99) },
                { method: "jsonp" as const, target: "B", count: jsonp.length, p50: p(jsonp, 50), p99: p(jsonp, 99) },
              ],
              saved: {
                p50: lower(p(ws, 50), p(jsonp, 50))! - p(ms, 50)!,
                p99: lower(p(ws, 99), p(jsonp, 99))! - p(ms, 99)!,
              },
              margin: {
                p50: p(
                  won.filter((s) => s.otherMs != null).map((s) => s.otherMs! - s.ms!),
                  50,
                ),
                p99: p(
                  won.filter((s) => s.otherMs != null).map((s) => s.otherMs! - s.ms!),
                  99,
                ),
              },
            },
          ];
    return { availability, best2 };
  }

  it.each([
    ["the whole range", T0, T0 + 600_000, undefined],
    ["a slice of it", T0 + 100_000, T0 + 250_000, undefined],
    ["one client", T0, T0 + 600_000, "client-races-2"],
  ] as const)("matches brute force over %s", async (_what, fromMs, toMs, clientId) => {
    const q = `from=${fromMs}&to=${toMs}${clientId ? `&client=${publicIdOf(sqliteDb(server.store), clientId)}` : ""}`;
    const res = await fetch(`${server.url}/api/races?${q}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as RacesResponse;
    expect(body.from).toBe(fromMs);
    expect(body.to).toBe(toMs);
    const want = brute(fromMs, toMs, clientId);
    expect(body.availability.map((r) => r.target)).toEqual(want.availability.map((r) => r.target));
    for (const [i, r] of body.availability.entries()) {
      const w = want.availability[i]!;
      expect(r).toMatchObject({ target: w.target, ok: w.ok, failures: w.failures });
      expect(r.share!).toBeCloseTo(w.share!, 12);
    }
    expect(body.best2).toHaveLength(1);
    const got = body.best2[0]!;
    const w = want.best2[0]!;
    expect({ ...got, saved: undefined, margin: undefined }).toEqual({ ...w, saved: undefined, margin: undefined });
    expect(got.saved.p50!).toBeCloseTo(w.saved.p50!, 9);
    expect(got.saved.p99!).toBeCloseTo(w.saved.p99!, 9);
    expect(got.margin.p50!).toBeCloseTo(w.margin.p50!, 9);
    expect(got.margin.p99!).toBeCloseTo(w.margin.p99!, 9);
    // The planted data has B failing 40 % of its probes and best-of-two only 5 %.
    const share = (t: string) => body.availability.find((r) => r.target === t)!.share!;
    expect(share("A")).toBeGreaterThan(0.9);
    expect(share("B")).toBeLessThan(0.8);
  });

  it("answers 400 JSON for a bad query, and empty lists for an empty range", async () => {
    const bad = await fetch(`${server.url}/api/races?from=soon`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: expect.any(String) });
    const empty = (await (
      await fetch(`${server.url}/api/races?from=1000000000000&to=1000000000001`)
    ).json()) as RacesResponse;
    expect(empty.availability).toEqual([]);
    expect(empty.best2).toEqual([]);
  });
});
