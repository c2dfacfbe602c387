// Two real servers on two ports are two origins: a page from A must be able to
// probe and time B's echo paths, while nothing but A's own pages may write to A.
// Then TLS: a self-signed certificate made here serves /echo over HTTPS and /ws over WSS.
import http from "node:http";
import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { StatsResponse } from "../../shared/contract/index.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";
import { makeSelfSignedCert } from "../helpers/tls.js";

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(url: string, options: https.RequestOptions = {}, body?: string): Promise<RawResponse> {
  const mod = url.startsWith("https:") ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, options, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function wsEcho(url: string, options: WebSocket.ClientOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no echo from ${url}`));
    }, 5000);
    ws.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    ws.once("open", () => ws.send('{"type":"echo","id":42}'));
    ws.on("message", (d) => {
      const text = d.toString();
      if (!text.includes('"echo"')) return; // the welcome comes first
      clearTimeout(timer);
      ws.close();
      resolve(text);
    });
  });
}

const batch = (sessionId: string) =>
  JSON.stringify({
    clientId: "client-cors-1",
    sessionId,
    samples: [{ seq: 0, t: Date.now(), method: "xhr", target: "B", ms: 12.5, outcome: "ok" }],
  });

describe("two origins: A and B as separate processes", () => {
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    b = await startServerProcess(["--name", "B", "--no-ping"]);
    a = await startServerProcess(["--name", "A", "--no-ping", "--peer", b.url]);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it.each(["/echo", "/jsonp?callback=cb"])(
    "B answers %s to a page from A with CORS * and Timing-Allow-Origin *",
    async (p) => {
      const r = await request(`${b.url}${p}`, { headers: { Origin: a.url } });
      expect(r.status).toBe(200);
      expect(r.headers["access-control-allow-origin"]).toBe("*");
      expect(r.headers["timing-allow-origin"]).toBe("*");
      // "*" with credentials is refused by browsers; the probes send none, so none is allowed.
      expect(r.headers["access-control-allow-credentials"]).toBeUndefined();
    },
  );

  it("B's WebSocket echo accepts a connection from A's origin", async () => {
    const reply = await wsEcho(`${b.url.replace(/^http/, "ws")}/ws`, { origin: a.url });
    expect(reply).toBe('{"type":"echo","id":42}');
  });

  it("the ingest API grants no CORS: no Access-Control-Allow-Origin on answers or preflights", async () => {
    const same = await request(
      `${a.url}/api/samples`,
      { method: "POST", headers: { Origin: a.url, "Content-Type": "application/json" } },
      batch("session-same-1"),
    );
    expect(same.status).toBe(200);
    expect(same.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await request(`${a.url}/api/samples`, {
      method: "OPTIONS",
      headers: {
        Origin: b.url,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    expect(preflight.headers["access-control-allow-methods"]).toBeUndefined();
  });

  it("a cross-origin POST to /api/samples is refused with 403 JSON and stores nothing", async () => {
    const from = Date.now() - 60_000;
    const before = (JSON.parse((await request(`${a.url}/api/stats?from=${from}`)).body) as StatsResponse).rows;
    // text/plain is a "simple" request: a browser sends it cross-origin without a preflight.
    const r = await request(
      `${a.url}/api/samples`,
      { method: "POST", headers: { Origin: b.url, "Content-Type": "text/plain" } },
      batch("session-foreign-1"),
    );
    expect(r.status).toBe(403);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(r.body)).toMatchObject({ error: expect.stringContaining(b.url), code: "FOREIGN_ORIGIN" });
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    const after = (JSON.parse((await request(`${a.url}/api/stats?from=${from}`)).body) as StatsResponse).rows;
    expect(after).toEqual(before);
  });
});

describe("TLS: --tls-cert and --tls-key", () => {
  let server: ServerProcess;
  let ca: Buffer;
  beforeAll(async () => {
    const cert = makeSelfSignedCert();
    ca = cert.pem;
    server = await startServerProcess([
      "--name",
      "T",
      "--no-ping",
      "--tls-cert",
      cert.certPath,
      "--tls-key",
      cert.keyPath,
    ]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("announces an https:// URL", () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it("serves /echo over HTTPS, verified against the test's own certificate", async () => {
    const r = await request(`${server.url}/echo`, { ca, headers: { Origin: "https://elsewhere.example" } });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ ok: true });
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    expect(r.headers["timing-allow-origin"]).toBe("*");
  });

  it("serves the WebSocket echo over WSS", async () => {
    const reply = await wsEcho(`${server.url.replace(/^https/, "wss")}/ws`, {
      ca,
      origin: "https://elsewhere.example",
    });
    expect(reply).toBe('{"type":"echo","id":42}');
  });

  it("does not answer plain HTTP on the TLS port", async () => {
    const plain = server.url.replace(/^https/, "http");
    // Depending on Node's version the TLS layer hangs up or answers 400; never an echo.
    const status = await request(`${plain}/echo`).then(
      (r) => r.status,
      () => 0,
    );
    expect(status).not.toBe(200);
  });
});
