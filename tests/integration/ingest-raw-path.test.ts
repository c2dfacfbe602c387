// POST /api/samples has two readers: a page's plain report (Content-Length,
// JSON or text/plain, no content coding) is read on the raw node:http
// request, anything else by express's body parser. Each request here is sent
// both ways (with a Content-Length, and chunked, which only express reads);
// the two must answer alike, and the counter of requests left to express
// shows which reader answered.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestRawPath, ingestRouter, INGEST_BODY_BYTES_MAX, type IngestOptions } from "../../server/api/ingest.js";
import { jsonErrorHandler } from "../../server/api/http-error.js";
import { ingestHere } from "../../server/ingest/read-batch.js";
import { createClientDirectory } from "../../server/privacy/public-ids.js";
import { storageHealth } from "../../server/storage-faults.js";
import { SessionOwnerError } from "../../server/store/errors.js";
import type { Store } from "../../server/store/store.js";

const T = Date.now() - 60_000;
/** clientIds the fake store treats specially. */
const THIEF = "client_thief";
const FULL_DISK = "client_full_disk";

let server: http.Server;
let url: string;
let toExpress = 0;
let refuseNext = false;

beforeAll(async () => {
  // The store's reading is the real one (ingestHere); only the write is faked.
  const store = {
    ingestBody: (
      body: Uint8Array,
      rules: Parameters<Store["ingestBody"]>[1],
      meta: Parameters<Store["ingestBody"]>[2],
    ) =>
      ingestHere(body, rules, meta, (batch) => {
        if (batch.clientId === THIEF)
          return Promise.reject(new SessionOwnerError("session belongs to another clientId"));
        if (batch.clientId === FULL_DISK)
          return Promise.reject(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
        return Promise.resolve({ accepted: batch.samples.length, duplicates: 0 });
      }),
  } as unknown as Store;
  const o: IngestOptions = {
    nowMs: Date.now,
    admit: (_req, res) => {
      if (!refuseNext) return true;
      refuseNext = false;
      res.writeHead(429, { "Content-Type": "application/json; charset=utf-8" }).end('{"code":"RATE_LIMITED"}');
      return false;
    },
    rules: () => ({ oldestMs: 0, newestMs: Date.now() + 86_400_000, rawDays: 30, targets: ["A"] }),
    clients: createClientDirectory(Buffer.alloc(32, 1), () => []),
    storage: storageHealth("test.db", () => {}),
    trustedProxies: null,
  };
  const app = express();
  app.use(ingestRouter(store, o));
  app.use(jsonErrorHandler);
  const raw = ingestRawPath(store, o);
  server = http.createServer((req, res) => {
    if (raw(req, res)) return;
    toExpress++;
    app(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

interface Answer {
  status: number;
  body: string;
  type: string | undefined;
  cache: string | undefined;
}

/** One POST; `chunked` sends the body without a Content-Length. */
function post(
  body: string | Buffer,
  headers: Record<string, string>,
  chunked: boolean,
  path = "/api/samples",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          body: text,
          type: res.headers["content-type"],
          cache: res.headers["cache-control"],
        }),
      );
    });
    req.on("error", reject);
    if (chunked) {
      // Written before end(), with no length set: Node sends it chunked.
      req.write(body);
      req.end();
    } else {
      req.setHeader("Content-Length", Buffer.byteLength(body));
      req.end(body);
    }
  });
}

/** The same request both ways: the answers, and how many went to express. */
async function bothWays(
  body: string | Buffer,
  headers: Record<string, string> = { "Content-Type": "application/json" },
) {
  const before = toExpress;
  const plain = await post(body, headers, false);
  const plainToExpress = toExpress - before;
  const chunked = await post(body, headers, true);
  return { plain, chunked, plainToExpress, chunkedToExpress: toExpress - before - plainToExpress };
}

const batch = (
  clientId: string,
  samples: unknown[] = [{ seq: 0, t: T, method: "xhr", target: "A", ms: 1.5, outcome: "ok" }],
) => JSON.stringify({ clientId, sessionId: `session_${clientId}`, samples });

describe("POST /api/samples: the raw reader and express's answer alike", () => {
  it.each([
    ["a stored batch", 200, batch("client_ok")],
    ["malformed JSON", 400, "{not json"],
    [
      "a batch with a bad sample",
      400,
      batch("client_bad", [{ seq: 0, t: T, method: "xhr", target: "A", ms: -5, outcome: "ok" }]),
    ],
    [
      "a sample for an unknown target",
      400,
      batch("client_bad", [{ seq: 0, t: T, method: "xhr", target: "Z", ms: 1, outcome: "ok" }]),
    ],
    ["a session of another client", 409, batch(THIEF)],
    ["a full disk", 503, batch(FULL_DISK)],
  ])("%s: %i both ways, the plain report read raw", async (_what, status, body) => {
    const r = await bothWays(body);
    expect(r.plain.status).toBe(status);
    expect(r.plain).toEqual(r.chunked);
    expect(r.plainToExpress, "plain report left to express").toBe(0);
    expect(r.chunkedToExpress, "chunked report left to express").toBe(1);
    expect(r.plain.type).toBe("application/json; charset=utf-8");
    expect(r.plain.cache).toBe(status === 200 ? undefined : "no-store");
  });

  it("reads sendBeacon's text/plain;charset=UTF-8 raw", async () => {
    const r = await bothWays(batch("client_beacon"), { "Content-Type": "text/plain;charset=UTF-8" });
    expect(r.plain).toMatchObject({ status: 200, body: '{"accepted":1,"duplicates":0}' });
    expect(r.plainToExpress).toBe(0);
  });

  it.each([
    [
      "a gzip-coded body",
      200,
      { "Content-Type": "application/json", "Content-Encoding": "gzip" },
      gzipSync(batch("client_gzip")),
    ],
    ["another charset", 200, { "Content-Type": "application/json; charset=latin1" }, batch("client_latin1")],
    ["another media type", 400, { "Content-Type": "application/x-www-form-urlencoded" }, batch("client_form")],
    [
      "a foreign origin",
      403,
      { "Content-Type": "application/json", Origin: "http://evil.example" },
      batch("client_foreign"),
    ],
    [
      "a body over the limit",
      413,
      { "Content-Type": "application/json" },
      `{"pad":"${"x".repeat(INGEST_BODY_BYTES_MAX)}"}`,
    ],
  ])("leaves %s to express, which answers %i", async (_what, status, headers, body) => {
    const before = toExpress;
    const r = await post(body, headers, false);
    expect(r.status).toBe(status);
    expect(toExpress - before).toBe(1);
  });

  it("a refused budget is answered before the body is read, by either reader", async () => {
    refuseNext = true;
    const r = await post(batch("client_429"), { "Content-Type": "application/json" }, false);
    expect(r.status).toBe(429);
    refuseNext = true;
    expect((await post(batch("client_429"), { "Content-Type": "application/json" }, true)).status).toBe(429);
    // The budget's refusal leaves the connection usable for the next report.
    expect((await post(batch("client_429"), { "Content-Type": "application/json" }, false)).status).toBe(200);
  });
});
