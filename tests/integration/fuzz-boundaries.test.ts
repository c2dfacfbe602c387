// Property tests at the server's boundaries (fast-check): tens of thousands of
// malformed ingest bodies, query strings and WebSocket messages against a
// real server. Never a 5xx, nothing stored, no prototype pollution, and real
// probes are answered afterwards.
import http from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { RunningServer } from "../../server/app.js";
import { WS_PAYLOAD_BYTES_MAX } from "../../server/echo/ws-echo.js";
import { isSampleReason } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

/** Runs per boundary: together tens of thousands (24,000), about 20 s alone on loopback. */
const RUNS = { ingest: 8_000, query: 8_000, ws: 8_000 } as const;
/** One seed so a failure reproduces; fast-check prints it and the shrunk input. */
const SEED = 20261123;
/**
 * Ingest bodies sent at once, each checked on its own. A refusal is answered
 * by the writer thread, two thread hand-offs per request; sent one at a time
 * on a loaded machine each request waited ~7 ms for its threads to be
 * scheduled (60 s wall for 8,000 bodies at 10 s of CPU). Eight in flight
 * overlap those waits; every body is still sent and judged alone.
 */
const INGEST_AT_ONCE = 8;

let server: RunningServer;
let protoKeysBefore: string[];
const agent = new http.Agent({ keepAlive: true, maxSockets: INGEST_AT_ONCE });

beforeAll(async () => {
  protoKeysBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  // Lab run: no budgets, so every input reaches the parsers.
  server = await startInProcess(["--name", "A", "--peer", "B=http://127.0.0.1:9", "--no-rate-limit"]);
});
afterAll(async () => {
  agent.destroy();
  await server.close();
});

function request(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** What a leaked file path or stack trace looks like in an answer. */
const SERVER_PATH_OR_STACK = /\/(work|tmp|home|node_modules)\/|at \w+ \(/;

const count = (table: string) => {
  const db = sqliteDb(server.store);
  // Samples are blocks since store version 7: counted through the decoded TEMP tables.
  if (table === "samples") loadSampleTables(db);
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
};

function assertNoPollution(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeysBefore);
  const probe = {} as Record<string, unknown>;
  for (const k of ["polluted", "isAdmin", "x", "y"]) expect(probe[k]).toBeUndefined();
}

// ---- generators ---------------------------------------------------------------

const validSample = (seq: number) => ({
  seq,
  t: Date.now() - 1000,
  method: "xhr",
  target: "A",
  ms: 1.5,
  outcome: "ok",
});
const validBatch = () => ({
  clientId: "client_fuzz",
  sessionId: "session_fuzz",
  samples: [validSample(0), validSample(1)],
});

/** Mutations that make a valid batch invalid, each for a reason the server must catch. */
const badBatch: fc.Arbitrary<unknown> = fc.oneof(
  // Arbitrary JSON: no chance of being a batch.
  fc.jsonValue(),
  // One field of the envelope replaced by anything of another type or shape (a label may be any short string).
  fc
    .record({
      key: fc.constantFrom("clientId", "sessionId", "samples"),
      value: fc.oneof(
        fc.integer(),
        fc.constant(null),
        fc.array(fc.integer()),
        fc.string({ maxLength: 3 }),
        fc.string({ minLength: 65, maxLength: 80 }),
      ),
    })
    .map(({ key, value }) => ({ ...validBatch(), [key]: value })),
  fc
    .oneof(fc.integer(), fc.constant(null), fc.array(fc.string()), fc.string({ minLength: 65, maxLength: 80 }))
    .map((label) => ({ ...validBatch(), label })),
  // One sample field replaced by something it can never be.
  fc
    .record({
      key: fc.constantFrom(
        "seq",
        "t",
        "method",
        "target",
        "ms",
        "outcome",
        "scheduledT",
        "winner",
        "minrtt",
        "lateMs",
        "hiddenMs",
      ),
      value: fc.oneof(
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !["xhr", "jsonp", "ws", "ok", "A"].includes(s)),
        fc.constant(-1),
        fc.constant(1e300),
        fc.constant(null),
        fc.object(),
      ),
    })
    .map(({ key, value }) => ({ ...validBatch(), samples: [{ ...validSample(0), [key]: value }] })),
  // Unknown keys, including the ones a prototype-pollution payload uses.
  fc
    .constantFrom("__proto__", "constructor", "prototype", "polluted", "isAdmin")
    .map((key) =>
      JSON.parse(
        `{"clientId":"client_fuzz","sessionId":"session_fuzz","samples":[${JSON.stringify(validSample(0))}],"${key}":{"polluted":1,"prototype":{"polluted":1}}}`,
      ),
    ),
  fc.constantFrom("__proto__", "constructor").map((key) => ({
    ...validBatch(),
    samples: [
      JSON.parse(
        `{"seq":0,"t":${Date.now()},"method":"xhr","target":"A","ms":1,"outcome":"ok","${key}":{"polluted":1}}`,
      ),
    ],
  })),
  // Samples this deployment does not take: an unknown target, a year ahead, from 2001.
  fc
    .constantFrom(
      { target: "Z" },
      { t: Date.now() + 365 * 86_400_000 },
      { t: 1_000_000_000_000 },
      { method: "best2", target: "Z+A" },
    )
    .map((bad) => ({ ...validBatch(), samples: [{ ...validSample(0), ...bad }] })),
  // A reason outside the vocabulary: any text, an older page's free-text forms, near misses.
  fc
    .oneof(
      fc.string({ maxLength: 40 }).filter((s) => !isSampleReason(s)),
      fc.constantFrom(
        "http-503",
        "ping: Network is unreachable",
        "ws:ws-closed jsonp:timeout",
        "other:network",
        "FROZEN",
        "frozen ",
        "x".repeat(300),
      ),
    )
    .map((reason) => ({
      ...validBatch(),
      samples: [validSample(1), { ...validSample(0), ms: null, outcome: "error", reason }],
    })),
  // Duplicate seqs, empty or oversized sample lists.
  fc
    .constantFrom(
      [validSample(0), validSample(0)],
      [],
      Array.from({ length: 1001 }, (_, i) => validSample(i)),
    )
    .map((samples) => ({ ...validBatch(), samples })),
);

const rawBody: fc.Arbitrary<string> = fc.oneof(
  badBatch.map((b) => JSON.stringify(b) ?? "null"),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a).toString("latin1")),
  fc.constantFrom("{", "[", '{"clientId":', "\u0000", '{"samples":[{"seq":1e999}]}', "null", "true", '"x"'),
);

const QUERY_KEYS = [
  "from",
  "to",
  "client",
  "method",
  "target",
  "visible",
  "maxLateMs",
  "exclude",
  "timeouts",
  "bucketMs",
  "binsPerDecade",
  "range",
  "callback",
  "__proto__",
  "constructor",
  "__proto__[polluted]",
  "constructor[prototype][polluted]",
];
const queryValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer().map(String),
  fc.constantFrom("-1", "1e3", "9999999999999999999", "xhr,ws", "A+B", "%00", "%E0%A4%A", "&&", "=", "[]"),
);
const queryString: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), queryValue), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")),
  fc
    .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), queryValue), { maxLength: 4 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v.replace(/[#\s]/g, "")}`).join("&")),
  fc.string({ maxLength: 60 }).map((s) => encodeURI(s)),
);
const QUERY_PATHS = [
  "/api/stats",
  "/api/histogram",
  "/api/cdf",
  "/api/timeseries",
  "/api/heatmap",
  "/api/clients",
  "/api/races",
  "/api/config",
  "/echo",
  "/jsonp",
];

const wsMessage: fc.Arbitrary<{ data: string | Buffer; binary: boolean }> = fc.oneof(
  fc.jsonValue().map((v) => ({ data: JSON.stringify(v) ?? "null", binary: false })),
  fc.string({ maxLength: 100 }).map((s) => ({ data: s, binary: false })),
  fc.uint8Array({ maxLength: 100 }).map((a) => ({ data: Buffer.from(a), binary: true })),
  fc
    .record({
      type: fc.constantFrom("echo", "hello", "baseline", "welcome", "__proto__"),
      id: fc.oneof(fc.integer(), fc.string()),
      clientId: fc.string({ maxLength: 70 }),
      extra: fc.option(fc.object(), { nil: undefined }),
    })
    .map((m) => ({ data: JSON.stringify(m), binary: false })),
  fc
    .constantFrom(
      '{"type":"echo","id":1,"__proto__":{"polluted":1}}',
      '{"type":"hello","clientId":"client_fuzz","sessionId":"session_fuzz","constructor":{"prototype":{"polluted":1}}}',
      '{"type":"echo","id":-1}',
      '{"type":"echo","id":1e400}',
    )
    .map((data) => ({ data, binary: false })),
  fc.constant({ data: "x".repeat(WS_PAYLOAD_BYTES_MAX + 1), binary: false }),
);

// ---- properties ---------------------------------------------------------------

describe("property: malformed input at every boundary", () => {
  it(`${RUNS.ingest} malformed ingest bodies: always a 4xx with a code, nothing stored`, async () => {
    const contentType = fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(rawBody, contentType), { minLength: INGEST_AT_ONCE, maxLength: INGEST_AT_ONCE }),
        async (cases) => {
          const answers = await Promise.all(
            cases.map(([body, type]) => request("POST", "/api/samples", body, { "Content-Type": type })),
          );
          for (const res of answers) {
            expect(res.status).toBeGreaterThanOrEqual(400);
            expect(res.status).toBeLessThan(500);
            expect(JSON.parse(res.text)).toMatchObject({ code: expect.any(String), error: expect.any(String) });
            expect(res.text).not.toMatch(SERVER_PATH_OR_STACK);
          }
        },
      ),
      { numRuns: RUNS.ingest / INGEST_AT_ONCE, seed: SEED },
    );
    expect(count("samples")).toBe(0);
    expect(count("sessions")).toBe(0);
    assertNoPollution();
  }, 120_000);

  it(`${RUNS.query} query strings on every GET path: never a 5xx, never a path or stack in an error`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...QUERY_PATHS), queryString, async (path, q) => {
        const res = await request("GET", `${path}?${q}`);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.text).not.toMatch(SERVER_PATH_OR_STACK);
          if (path !== "/jsonp" || res.status !== 200)
            expect(JSON.parse(res.text)).toMatchObject({ code: expect.any(String) });
        }
        if (path === "/jsonp" && res.status === 200)
          expect(res.text).toMatch(
            /^\/\*\*\/ typeof [A-Za-z_$][\w$]*==='function' && [A-Za-z_$][\w$]*\(\{"ok":true\}\);$/,
          );
      }),
      { numRuns: RUNS.query, seed: SEED },
    );
    expect(count("samples")).toBe(0);
    assertNoPollution();
  }, 120_000);

  it(`${RUNS.ws} WebSocket messages: echoed, or closed 1008/1009, never a crash`, async () => {
    const url = `${server.url.replace("http", "ws")}/ws`;
    let ws: WebSocket | undefined;
    const closes = new Map<number, number>();
    const open = () =>
      new Promise<WebSocket>((resolve, reject) => {
        const s = new WebSocket(url, { perMessageDeflate: false });
        s.once("open", () => resolve(s));
        s.once("error", reject);
        s.on("close", (code) => closes.set(code, (closes.get(code) ?? 0) + 1));
      });
    await fc.assert(
      fc.asyncProperty(wsMessage, async (m) => {
        if (ws === undefined || ws.readyState !== WebSocket.OPEN) ws = await open();
        const s = ws;
        const outcome = new Promise<string>((resolve) => {
          const onMessage = (d: WebSocket.RawData) => {
            const text = d.toString();
            if (text.includes('"welcome"') || text.includes('"baseline"') || text.startsWith('{"type":"served"'))
              return;
            done(`reply ${text}`);
          };
          const onClose = (code: number) => done(`close ${code}`);
          // A hello is answered by nothing: wait long enough that a loaded machine's close or echo is not mistaken for silence.
          const timer = setTimeout(() => done("silent"), 2000);
          const done = (what: string) => {
            clearTimeout(timer);
            s.off("message", onMessage);
            s.off("close", onClose);
            resolve(what);
          };
          s.on("message", onMessage);
          s.on("close", onClose);
        });
        s.send(m.data, { binary: m.binary });
        const what = await outcome;
        // An echo comes back as sent, a hello is silent, anything else closes the socket as a policy violation or too big.
        if (what.startsWith("reply ")) expect(what.slice(6)).toBe(String(m.data));
        else if (what.startsWith("close ")) expect(["close 1008", "close 1009"]).toContain(what);
        else expect(String(m.data)).toMatch(/"type":"hello"/);
      }),
      { numRuns: RUNS.ws, seed: SEED },
    );
    ws?.close();
    expect([...closes.keys()].every((c) => [1005, 1008, 1009].includes(c))).toBe(true);
    expect(count("samples")).toBe(0);
    expect(count("sessions")).toBe(0);
    assertNoPollution();
  }, 180_000);

  it("afterwards the server answers real probes and stores an honest batch", async () => {
    expect((await request("GET", "/echo")).status).toBe(200);
    const jsonp = await request("GET", "/jsonp?callback=cb");
    expect(jsonp.text).toBe(`/**/ typeof cb==='function' && cb({"ok":true});`);
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`);
    const echoed = await new Promise<string>((resolve, reject) => {
      ws.on("message", (d) => {
        if (d.toString().includes('"echo"')) resolve(d.toString());
      });
      ws.once("open", () => ws.send('{"type":"echo","id":42}'));
      ws.once("error", reject);
    });
    expect(echoed).toBe('{"type":"echo","id":42}');
    ws.close();
    const res = await request("POST", "/api/samples", JSON.stringify(validBatch()), {
      "Content-Type": "application/json",
    });
    expect(res.status).toBe(200);
    expect(count("samples")).toBe(2);
  });
});
