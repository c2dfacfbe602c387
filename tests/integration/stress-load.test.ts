// The stress test's load paths on a real server: where /api/config says they
// listen, exact and incompressible downloads, uploads counted, bad requests
// answered as JSON, budgets beyond which the answer is 429 with Retry-After
// (per address: bytes per hour and streams at once), and --no-stress.
import http from "node:http";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { PACING_BURST_MS } from "../../server/limits/stress-pacing.js";
import { LOAD_REQUEST_BYTES_MAX } from "../../server/stress/load-paths.js";
import { configSchema, parseWith } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function origins(s: RunningServer): Promise<{ down: string; up: string }> {
  const cfg = parseWith(configSchema, await (await fetch(`${s.url}/api/config`)).json());
  if (!cfg.ok) throw new Error(cfg.error);
  const ports = cfg.value.servers[0]!.stress;
  if (ports === undefined) throw new Error("no stress ports in /api/config");
  return { down: `http://127.0.0.1:${ports.downPort}`, up: `http://127.0.0.1:${ports.upPort}` };
}

const MIB = 1024 * 1024;

describe("load paths", () => {
  it("/api/config names two ports of their own; downloads are exact and incompressible, uploads counted", async () => {
    server = await startInProcess();
    const o = await origins(server);
    expect(new Set([o.down, o.up, server.url]).size).toBe(3);

    const res = await fetch(`${o.down}/stress/down?bytes=${3 * MIB + 7}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-encoding")).toBeNull();
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(3 * MIB + 7);
    // Random bytes: gzip cannot shrink them (it would halve text, and zeros to nothing).
    expect(gzipSync(body).length).toBeGreaterThan(body.length);

    const up = await fetch(`${o.up}/stress/up`, { method: "POST", body: new Uint8Array(2 * MIB + 3) });
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ bytes: 2 * MIB + 3 });

    const ping = await fetch(`${o.up}/stress/ping`);
    expect(ping.status).toBe(204);
    expect(ping.headers.get("access-control-allow-origin")).toBe("*");
    // Both origins serve every load path.
    expect((await fetch(`${o.down}/stress/up`, { method: "POST", body: "x" })).status).toBe(200);
  });

  it("answers a bad request as JSON with a code", async () => {
    server = await startInProcess();
    const o = await origins(server);
    const cases: [Promise<Response>, number, string][] = [
      [fetch(`${o.down}/stress/down`), 400, "BAD_BYTES"],
      [fetch(`${o.down}/stress/down?bytes=0`), 400, "BAD_BYTES"],
      [fetch(`${o.down}/stress/down?bytes=1&bytes=2`), 400, "BAD_BYTES"],
      [fetch(`${o.down}/stress/down?bytes=${LOAD_REQUEST_BYTES_MAX + 1}`), 400, "BAD_BYTES"],
      [fetch(`${o.down}/stress/down?bytes=10`, { method: "POST", body: "x" }), 405, "METHOD_NOT_ALLOWED"],
      [fetch(`${o.up}/stress/up`), 405, "METHOD_NOT_ALLOWED"],
      [fetch(`${o.up}/echo`), 404, "NOT_FOUND"],
    ];
    for (const [res, status, code] of cases) {
      const r = await res;
      expect(r.status).toBe(status);
      expect(await r.json()).toMatchObject({ code });
    }
    // No Content-Length: a chunked upload cannot be budgeted first.
    const chunked = await rawRequest(
      o.up,
      "POST",
      "/stress/up",
      { "Transfer-Encoding": "chunked" },
      "5\r\nhello\r\n0\r\n\r\n",
    );
    expect(chunked.status).toBe(411);
    expect(JSON.parse(chunked.body)).toMatchObject({ code: "LENGTH_REQUIRED" });
    const huge = await rawRequest(
      o.up,
      "POST",
      "/stress/up",
      { "Content-Length": String(LOAD_REQUEST_BYTES_MAX + 1) },
      "",
    );
    expect(huge.status).toBe(413);
  });

  it("bytes per hour: beyond the budget 429 STRESS_BUDGET with the wait in Retry-After, for downloads and uploads", async () => {
    const bytesPerHour = 64 * MIB;
    server = await startInProcess(["--stress-bytes-per-hour", String(bytesPerHour)]);
    const o = await origins(server);
    const first = await fetch(`${o.down}/stress/down?bytes=${60 * MIB}`);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const refused = await fetch(`${o.down}/stress/down?bytes=${8 * MIB}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(await refused.json()).toMatchObject({ code: "STRESS_BUDGET" });
    // About 4 MiB are missing, refilled at 64 MiB an hour: ~225 s (a little less as time passed).
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(200);
    expect(wait).toBeLessThanOrEqual(226);
    // An upload over the budget is read to its end and refused, so a browser sees the 429.
    const up = await fetch(`${o.up}/stress/up`, { method: "POST", body: new Uint8Array(8 * MIB) });
    expect(up.status).toBe(429);
    expect(Number(up.headers.get("retry-after"))).toBeGreaterThan(200);
    // What fits is still served.
    const small = await fetch(`${o.down}/stress/down?bytes=${MIB}`);
    expect(small.status).toBe(200);
    expect((await small.arrayBuffer()).byteLength).toBe(MIB);
  });

  it("streams per address: a third stream at once is refused for a second, and served once one ends", async () => {
    server = await startInProcess(["--stress-streams-per-address", "2"]);
    const o = await origins(server);
    // Two downloads held open: their bodies are not read, so the server waits on backpressure.
    const held = [await openDownload(o.down), await openDownload(o.down)];
    expect(held.map((h) => h.status)).toEqual([200, 200]);
    const third = await fetch(`${o.down}/stress/down?bytes=10`);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("1");
    // The page is of another origin: it can read the wait only if the answer exposes it.
    expect(third.headers.get("access-control-expose-headers")).toBe("Retry-After");
    expect(await server.load!.openStreams()).toBe(2);
    held[0]!.close();
    await waitUntil(async () => (await server!.load!.openStreams()) === 1);
    const fourth = await fetch(`${o.down}/stress/down?bytes=10`);
    expect(fourth.status).toBe(200);
    await fourth.arrayBuffer();
    held[1]!.close();
  });

  it("the rate per address: all of an address's streams together move at most --stress-mbps-per-address", async () => {
    server = await startInProcess(["--stress-mbps-per-address", "80"]);
    const o = await origins(server);
    const t0 = performance.now();
    const bodies = await Promise.all([
      fetch(`${o.down}/stress/down?bytes=${8 * MIB}`).then((r) => r.arrayBuffer()),
      fetch(`${o.down}/stress/down?bytes=${8 * MIB}`).then((r) => r.arrayBuffer()),
    ]);
    const seconds = (performance.now() - t0) / 1000;
    expect(bodies.map((b) => b.byteLength)).toEqual([8 * MIB, 8 * MIB]);
    // At 80 Mbit/s, less the burst the pace allows at first and the last chunk (256 KiB, sent at the
    // start of its turn): never faster (slower on a busy machine).
    const leastSeconds = (bytes: number) => ((bytes - 256 * 1024) * 8) / 80e6 - PACING_BURST_MS / 1000;
    expect(seconds).toBeGreaterThanOrEqual(leastSeconds(16 * MIB));
    expect((16 * MIB * 8) / seconds / 1e6).toBeGreaterThan(20);
    // Uploads are read at the rate too: the sender is slowed by TCP.
    const u0 = performance.now();
    const up = await fetch(`${o.up}/stress/up`, { method: "POST", body: new Uint8Array(4 * MIB) });
    expect(await up.json()).toEqual({ bytes: 4 * MIB });
    expect((performance.now() - u0) / 1000).toBeGreaterThanOrEqual(leastSeconds(4 * MIB));
  });

  it("--no-stress: no load paths, and /api/config offers none", async () => {
    server = await startInProcess(["--no-stress"]);
    expect(server.load).toBeNull();
    const cfg = (await (await fetch(`${server.url}/api/config`)).json()) as { servers: { stress?: unknown }[] };
    expect(cfg.servers[0]).not.toHaveProperty("stress");
    expect((await fetch(`${server.url}/stress/down?bytes=10`)).status).toBe(404);
  });
});

/** A download whose body is never read: the stream stays open until close(). */
function openDownload(origin: string): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}/stress/down?bytes=${64 * MIB}`, (res) => {
      res.pause();
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on("error", (err) => {
      if ((err as NodeJS.ErrnoException).code !== "ECONNRESET") reject(err);
    });
  });
}

function rawRequest(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${path}`, { method, headers }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
