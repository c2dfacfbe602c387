// Per-address budgets on a real server: 429 + Retry-After beyond them, nothing
// stored for a refused batch, and --no-rate-limit for lab runs.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { startInProcess } from "../helpers/in-process.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

let server: (RunningServer & { port: number }) | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function batch(seq: number) {
  return {
    clientId: "client_rate",
    sessionId: "session_rate",
    samples: [{ seq, t: Date.now(), method: "xhr", target: "A", ms: 1, outcome: "ok" }],
  };
}
const post = (s: RunningServer, body: unknown) =>
  fetch(`${s.url}/api/samples`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("per-address budgets", () => {
  it("echo: the burst is answered, then 429 RATE_LIMITED with Retry-After that a cross-origin page can read", async () => {
    server = await startInProcess(["--echo-rate", "2"]);
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 15; i++) {
      const res = await fetch(`${server.url}/${i % 2 === 0 ? "echo" : "jsonp?callback=cb"}`);
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
      else await res.arrayBuffer();
    }
    // burst = 2/s × 5 s = 10 tokens, plus what refilled meanwhile (at most a few).
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(10);
    expect(statuses.filter((s) => s === 200).length).toBeLessThan(15);
    expect(refused!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(refused!.headers.get("access-control-allow-origin")).toBe("*");
    expect(await refused!.json()).toMatchObject({ code: "RATE_LIMITED" });
  });

  it("ingest: batches beyond the budget are 429 and not stored", async () => {
    server = await startInProcess(["--ingest-rate", "1"]);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await post(server, batch(i))).status);
    const stored = (
      loadSampleTables(sqliteDb(server.store)).prepare("SELECT COUNT(*) AS n FROM samples").get() as { n: number }
    ).n;
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(stored).toBe(statuses.filter((s) => s === 200).length);
  });

  it.each([
    ["the raw path (JSON with its length)", false],
    ["express's path (a chunked body)", true],
  ])("ingest over budget, on %s: 429 before the body is read", async (_path, chunked) => {
    server = await startInProcess(["--ingest-rate", "1"]);
    const s = server;
    // Spend the burst (1/s × 5 s), and a little more for what refills meanwhile.
    for (let i = 0; i < 8; i++) await (await post(s, batch(i))).arrayBuffer();
    // A report whose body never arrives: a server that read it first would wait for it
    // (here up to the 30 s request timeout); a budget applied first answers at once.
    const started = performance.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(s.port, "127.0.0.1", () => {
        socket.write(
          [
            "POST /api/samples HTTP/1.1",
            `Host: 127.0.0.1:${s.port}`,
            "Content-Type: application/json",
            chunked ? "Transfer-Encoding: chunked" : "Content-Length: 500000",
            "",
            chunked ? '10\r\n{"clientId":"cli\r\n' : '{"clientId":"cli',
          ].join("\r\n"),
        );
      });
      let text = "";
      socket.on("data", (d: Buffer) => {
        text += d.toString();
        if (text.includes("\r\n\r\n") && text.includes("}")) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("error", reject);
      setTimeout(() => {
        socket.destroy();
        resolve(text);
      }, 5000);
    });
    const tookMs = performance.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 429/);
    expect(answer).toMatch(/retry-after: [1-9]/i);
    expect(answer).toContain('"code":"RATE_LIMITED"');
    expect(tookMs).toBeLessThan(2000);
  });

  it("--no-rate-limit: a lab run may send as fast as it likes", async () => {
    server = await startInProcess(["--no-rate-limit", "--echo-rate", "1", "--ingest-rate", "1"]);
    for (let i = 0; i < 30; i++) expect((await fetch(`${server.url}/echo`)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await post(server, batch(i))).status).toBe(200);
  });
});
