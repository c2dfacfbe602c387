// A page's traffic, from inside a test's network namespace (tests/helpers/netns.ts):
// a WebSocket hello (so the server measures ping, wsping and tcprtt towards
// this address and pushes the baselines), then the baselines and a few probe
// samples posted home, once on ingest's raw path and once chunked (express's).
// Usage: netns-client.ts BASE_URL CLIENT_ID SESSION_ID LISTEN_MS; prints a JSON summary.
import http from "node:http";
import WebSocket from "ws";

const [base, clientId, sessionId, listenMs] = process.argv.slice(2) as [string, string, string, string];
const baselines: Record<string, unknown>[] = [];

await new Promise<void>((resolve, reject) => {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws`, { headers: { "User-Agent": "netns-client" } });
  ws.on("open", () => ws.send(JSON.stringify({ type: "hello", clientId, sessionId })));
  ws.on("message", (data: Buffer) => {
    const m = JSON.parse(data.toString()) as { type: string; samples?: Record<string, unknown>[] };
    if (m.type === "baseline") baselines.push(...(m.samples ?? []));
  });
  ws.on("error", reject);
  setTimeout(() => {
    ws.close();
    resolve();
  }, Number(listenMs));
});

function post(body: string, chunked: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/api/samples`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0 netns-client",
        ...(chunked ? {} : { "Content-Length": Buffer.byteLength(body) }),
      },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    if (chunked) req.write(body.slice(0, 20));
    req.end(chunked ? body.slice(20) : body);
  });
}

const now = Date.now();
let seq = 0;
const samples = [
  ...baselines.map(({ id: _id, ...b }) => ({ ...b, seq: seq++ })),
  ...Array.from({ length: 20 }, (_, i) => ({
    seq: seq++,
    t: now - 20_000 + i * 1000,
    method: ["xhr", "jsonp", "ws"][i % 3],
    target: "A",
    ms: 0.5 + i / 10,
    outcome: "ok",
  })),
];
const half = Math.ceil(samples.length / 2);
const statuses = [
  await post(JSON.stringify({ clientId, sessionId, label: "in a namespace", samples: samples.slice(0, half) }), false),
  await post(JSON.stringify({ clientId, sessionId, samples: samples.slice(half) }), true),
];
console.log(
  JSON.stringify({ statuses, baselines: baselines.length, methods: [...new Set(baselines.map((b) => b.method))] }),
);
