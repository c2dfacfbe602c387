// Does tailprobe's /ws echo add anything over a bare `ws` echo server?
// Both run in child processes; one client per server sends a message, waits
// for the echo, repeats (the prober's pattern, without the 1 s pause), in
// interleaved rounds. Prints latency percentiles and their ratios.
// Run: npm run bench -- ws-echo-overhead  (or: npx tsx bench/ws-echo-overhead.ts [smoke|full])
import path from "node:path";
import WebSocket from "ws";
import { summarize } from "../shared/stats.js";
import { startNodeServer, startServerProcess } from "../testkit/server-process.js";
import { pinToOneCpu } from "./pin-cpu.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { rounds: 1, messages: 200 }, full: { rounds: 5, messages: 5000 } } as const;
/** Issue 13: "/ws 1.09× a bare ws echo: keep it there." */
const OVERHEAD_MAX = 1.25;

const BARE_SERVER = `
const { WebSocketServer } = require(${JSON.stringify(path.resolve("node_modules/ws"))});
const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
wss.on("connection", (s) => s.on("message", (d) => s.send(d, { binary: false })));
wss.on("listening", () => console.log("listening on http://127.0.0.1:" + wss.address().port));
`;

async function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  return ws;
}

async function pingPong(ws: WebSocket, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const msg = JSON.stringify({ type: "echo", id: i });
    const s = performance.now();
    await new Promise<void>((resolve) => {
      const onMessage = (d: WebSocket.RawData) => {
        if (d.toString() === msg) {
          ws.off("message", onMessage);
          resolve();
        }
      };
      ws.on("message", onMessage);
      ws.send(msg);
    });
    out.push(performance.now() - s);
  }
  return out;
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { rounds: ROUNDS, messages: MESSAGES_PER_ROUND } = SIZES[size];
  const bare = await startNodeServer(["-e", BARE_SERVER], { echoStderr: true });
  const tp = await startServerProcess(["--no-ping", "--no-rate-limit"], { dbPath: ":memory:", echoStderr: true });
  const lat: Record<"bare" | "tailprobe", number[]> = { bare: [], tailprobe: [] };
  pinToOneCpu([bare.child.pid!, tp.child.pid!]);
  try {
    const ws = (url: string) => url.replace(/^http:/, "ws:");
    const sockets = { bare: await open(ws(bare.url)), tailprobe: await open(`${ws(tp.url)}/ws`) };
    await pingPong(sockets.bare, Math.min(500, MESSAGES_PER_ROUND));
    await pingPong(sockets.tailprobe, Math.min(500, MESSAGES_PER_ROUND));
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (["bare", "tailprobe"] as const) : (["tailprobe", "bare"] as const);
      for (const name of order) lat[name].push(...(await pingPong(sockets[name], MESSAGES_PER_ROUND)));
    }
    sockets.bare.close();
    sockets.tailprobe.close();
  } finally {
    await bare.stop();
    await tp.stop();
  }
  const b = summarize(lat.bare);
  const t = summarize(lat.tailprobe);
  console.log(`WebSocket echo, ${ROUNDS} rounds × ${MESSAGES_PER_ROUND} round trips, one connection each`);
  for (const [name, s] of [
    ["bare", b],
    ["tailprobe", t],
  ] as const)
    console.log(
      `${name.padEnd(10)} p50 ${s.p50!.toFixed(3)} ms  p99 ${s.p99!.toFixed(3)} ms  p99.9 ${s.p999!.toFixed(3)} ms`,
    );
  console.log(`ratio tailprobe/bare: p50 ${(t.p50! / b.p50!).toFixed(2)}  p99 ${(t.p99! / b.p99!).toFixed(2)}`);
  const judge = (ratio: number) => (size === "smoke" ? null : ratio <= OVERHEAD_MAX);
  return [
    {
      figure: "/ws echo p50 vs bare ws (ms)",
      value: t.p50!,
      baseline: b.p50!,
      goal: `≤ ${OVERHEAD_MAX}× bare`,
      pass: judge(t.p50! / b.p50!),
    },
    { figure: "/ws echo p99 vs bare ws (ms)", value: t.p99!, baseline: b.p99!, goal: "(reported)", pass: null },
  ];
}

export const bench: Benchmark = {
  name: "ws-echo-overhead",
  about:
    "The /ws echo against a bare ws server, one connection each, message by message, interleaved rounds, both pinned to one CPU.",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
