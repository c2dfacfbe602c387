// What the three baselines read on loopback, and whether the ss run disturbs
// the WebSocket ping frames. One Node `ws` client (not a browser) says hello
// and collects what the server pushes; the client also sends one echo a
// second, so the connection carries the prober's sparse traffic.
// Phase A: ping frames half an interval away from the ss run (tailprobe's
// choice); phase B: frames sent right after ss starts. Same run, same machine.
// Run: npm run bench -- long baselines-loopback  (or: npx tsx bench/baselines-loopback.ts [smoke|full])
import http from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import type { BaselineSample } from "../shared/contract/index.js";
import { summarize } from "../shared/stats.js";
import { createBaselines } from "../server/baseline/baselines.js";
import { clientAddress } from "../server/client-address.js";
import { createWsEcho } from "../server/echo/ws-echo.js";
import { defaultLimits } from "../server/limits/limits-config.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { seconds: 3 }, full: { seconds: 15 } } as const;

async function phase(wsPingPhase: number, SECONDS: number): Promise<BaselineSample[]> {
  const baselines = createBaselines({ serverName: "S", ping: true, nowMs: Date.now, log: console.log, wsPingPhase });
  const echo = createWsEcho("S", baselines, (req) => clientAddress(req, null), defaultLimits(1000));
  const server = http.createServer((_req, res) => res.end());
  server.on("upgrade", (req, socket, head) => echo.handleUpgrade(req, socket, head));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  baselines.setLocalPort(port);
  const samples: BaselineSample[] = [];
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { perMessageDeflate: false });
  ws.on("message", (d) => {
    const m = JSON.parse(String(d)) as { type: string; samples?: BaselineSample[] };
    if (m.type === "baseline") samples.push(...m.samples!);
  });
  await new Promise((r) => ws.once("open", r));
  ws.send(
    JSON.stringify({
      type: "hello",
      clientId: "bench-client",
      sessionId: `bench-phase-${Math.round(wsPingPhase * 100)}`,
    }),
  );
  let id = 0;
  const echoTimer = setInterval(() => ws.send(JSON.stringify({ type: "echo", id: id++ })), 1000);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  clearInterval(echoTimer);
  ws.close();
  baselines.stop();
  echo.close();
  await new Promise((r) => server.close(r));
  return samples;
}

const fmt = (v: number | null) => (v === null ? "–" : v.toFixed(3));
function report(label: string, samples: BaselineSample[], SECONDS: number): Record<string, number | null> {
  const series: Record<string, number[]> = { ping: [], wsping: [], tcprtt: [], tcpminrtt: [] };
  let failures = 0;
  for (const s of samples) {
    if (s.outcome !== "ok" || s.ms === null) {
      failures++;
      continue;
    }
    series[s.method]!.push(s.ms);
    if (s.minrtt !== undefined) series.tcpminrtt!.push(s.minrtt);
  }
  console.log(`\n${label} (${SECONDS} s, ${failures} failures)`);
  console.log("method      n    min     p50     p90     p99     max   (ms)");
  const p50: Record<string, number | null> = {};
  for (const [m, v] of Object.entries(series)) {
    const s = summarize(v);
    p50[m] = s.p50;
    console.log(
      `${m.padEnd(10)}${String(s.count).padStart(3)} ${fmt(s.min).padStart(7)} ${fmt(s.p50).padStart(7)} ${fmt(s.p90).padStart(7)} ${fmt(s.p99).padStart(7)} ${fmt(s.max).padStart(7)}`,
    );
  }
  return p50;
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const SECONDS = SIZES[size].seconds;
  const apart = report("ping frames half an interval after ss (default)", await phase(0.5, SECONDS), SECONDS);
  const together = report("ping frames at the moment ss runs", await phase(0, SECONDS), SECONDS);
  const ratio = (together.wsping ?? NaN) / (apart.wsping ?? NaN);
  console.log(`\nwsping p50 with ss coinciding / apart: ${ratio.toFixed(2)}`);
  return [
    {
      figure: "wsping p50 with ss coinciding (ms)",
      value: together.wsping ?? NaN,
      baseline: apart.wsping ?? null,
      goal: "(reported)",
      pass: null,
    },
  ];
}

export const bench: Benchmark = {
  name: "baselines-loopback",
  about:
    "wsping, ping and TCP RTT towards a local ws client, ping frames half an interval from the `ss` run (default) or at its moment.",
  run,
  // Figures only reported, the evidence for when wsping fires (docs/baselines.md):
  // only in `npm run bench -- long` (bench/benchmarks.ts LONG_ONLY).
  long: {
    about:
      "wsping, ping and TCP RTT towards a local ws client, ping frames half an interval from the `ss` run (default) or at its moment.",
    run,
  },
};
if (isMain(import.meta.url)) await runAlone(bench);
