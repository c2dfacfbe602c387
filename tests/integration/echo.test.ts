// The echo paths are what every probe measures: their headers decide whether a
// browser may time them, cache them or reuse the connection.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import WebSocket from "ws";
import { KEEP_ALIVE_TIMEOUT_MS, type RunningServer } from "../../server/app.js";
import { startInProcess } from "../helpers/in-process.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(async () => {
  await server.close();
});

/** Raw GET so we see exactly the headers on the wire (fetch hides some). */
function rawGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${server.url}${path}`, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
  });
}

describe("GET /echo", () => {
  it("answers a tiny uncacheable JSON body any origin may read and time", async () => {
    const r = await rawGet("/echo", { "Accept-Encoding": "gzip, br", Origin: "http://elsewhere.example" });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ ok: true });
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    expect(r.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(r.headers["timing-allow-origin"]).toBe("*");
    expect(r.headers.etag).toBeUndefined();
    expect(r.headers["content-encoding"]).toBeUndefined();
    expect(r.headers["server-timing"]).toMatch(/^app;dur=\d+(\.\d+)?, lag;dur=\d+(\.\d+)?$/);
    expect(r.headers["x-powered-by"]).toBeUndefined();
  });

  it("keeps idle connections open longer than browsers do", async () => {
    const r = await rawGet("/echo");
    expect(r.headers["keep-alive"]).toMatch(new RegExp(`timeout=${Math.floor(KEEP_ALIVE_TIMEOUT_MS / 1000)}`));
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThanOrEqual(65_000);
  });

  it("refuses methods other than GET and HEAD", async () => {
    const res = await fetch(`${server.url}/echo`, { method: "POST", body: "x" });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error: expect.any(String) });
  });
});

describe("GET /jsonp", () => {
  it("wraps the answer in a guarded call of the given callback", async () => {
    const r = await rawGet("/jsonp?callback=tp_cb_12&_=1");
    expect(r.status).toBe(200);
    expect(r.body).toBe(`/**/ typeof tp_cb_12==='function' && tp_cb_12({"ok":true});`);
    expect(r.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    expect(r.headers["timing-allow-origin"]).toBe("*");
    expect(r.headers["server-timing"]).toMatch(/app;dur=/);
    expect(r.headers["content-encoding"]).toBeUndefined();
  });

  it.each(["", "?callback=", "?callback=alert(1)", "?callback=a%3Bb", "?callback=function", "?cb=x"])(
    "answers 400 JSON for %j",
    async (query) => {
      const r = await rawGet(`/jsonp${query}`);
      expect(r.status).toBe(400);
      expect(r.headers["content-type"]).toMatch(/^application\/json/);
      expect(JSON.parse(r.body)).toMatchObject({ error: expect.stringMatching(/callback/) });
    },
  );
});

describe("WebSocket /ws", () => {
  it("echoes a probe byte for byte, from any origin", async () => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`, { origin: "http://elsewhere.example" });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const replies: string[] = [];
    ws.on("message", (d) => replies.push(d.toString()));
    const sent = ['{"type":"echo","id":1}', '{"type":"echo","id":123456}', '{ "id": 7, "type": "echo" }'];
    for (const m of sent) ws.send(m);
    const deadline = Date.now() + 5000;
    while (replies.filter((r) => r.includes('"echo"')).length < sent.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(replies.filter((r) => r.includes('"echo"'))).toEqual(sent);
    ws.close();
  });

  it("closes the socket with 1008 on a message that is not in the protocol", async () => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`);
    await new Promise((resolve) => ws.once("open", resolve));
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send("not json at all");
    expect(await closed).toBe(1008);
  });

  it("does not upgrade other paths", async () => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/nope`);
    const err = await new Promise<Error>((resolve) => ws.once("error", resolve));
    expect(err.message).toMatch(/Unexpected server response|socket hang up/);
  });
});
