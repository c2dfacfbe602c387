// Without --trust-proxy a forged X-Forwarded-For changes nothing: the ping
// target, the rate-limit key, the WebSocket cap and what is stored all use
// the socket's peer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { pingChildren } from "../helpers/child-processes.js";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";
import Database from "better-sqlite3";

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess(["--name", "A", "--echo-rate", "2", "--ws-per-address", "2"]);
});
afterAll(async () => {
  await server.stop();
});

/** Loopback addresses other than the peer's own: harmless if pinged, and visible if they were. */
const forged = (i: number) => `127.0.0.${10 + (i % 200)}`;

describe("forged X-Forwarded-For without --trust-proxy", () => {
  it("the rate-limit key is the socket peer: a new forged address per request buys no budget", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${server.url}/echo`, {
        headers: { "X-Forwarded-For": forged(i), "X-Real-IP": forged(i + 1) },
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    // burst = 2/s × 5 s = 10 (plus the little that refills meanwhile).
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(15);
  });

  it("the ping target and the WebSocket cap are the socket peer's", { timeout: 30_000 }, async () => {
    const open = (i: number) =>
      new Promise<WebSocket | number>((resolve) => {
        const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`, {
          headers: { "X-Forwarded-For": forged(i) },
        });
        ws.once("open", () => {
          ws.send(JSON.stringify({ type: "hello", clientId: `client_xff_${i}`, sessionId: `session_xff_${i}` }));
          resolve(ws);
        });
        ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      });
    const sockets = [await open(0), await open(1), await open(2)];
    // Two per address: the third, "from" yet another forged address, is refused all the same.
    expect(sockets.slice(0, 2).every((s) => s instanceof WebSocket)).toBe(true);
    expect(sockets[2]).toBe(429);
    await waitFor(() => (pingChildren(server.child.pid!).length > 0 ? true : undefined), 10_000, "a ping child");
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      for (const c of pingChildren(server.child.pid!)) seen.add(c.address);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect([...seen]).toEqual(["127.0.0.1"]);
    for (const s of sockets) if (s instanceof WebSocket) s.close();
  });

  it("stored data carries no forged address", async () => {
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": "127.0.0.77", "User-Agent": "probe" },
      body: JSON.stringify({
        clientId: "client_xff_store",
        sessionId: "session_xff_store",
        samples: [{ seq: 0, t: Date.now(), method: "xhr", target: "A", ms: 1, outcome: "ok" }],
      }),
    });
    expect(res.status).toBe(200);
    const db = new Database(server.dbPath, { readonly: true });
    try {
      const dump = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[])
        .map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all()))
        .join("\n");
      expect(dump).toContain("client_xff_store");
      expect(dump).not.toMatch(/127\.0\.0\.(77|1\d|2\d)/);
    } finally {
      db.close();
    }
    const config = await (await fetch(`${server.url}/api/config`)).text();
    expect(config).not.toMatch(/127\.0\.0\.\d+/);
  });
});
