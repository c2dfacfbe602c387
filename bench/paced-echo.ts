// Paced echo probes from the measuring process: one GET /echo (keep-alive) or
// one WebSocket echo every PACE_MS, each waiting for its answer. What the
// stall and capacity benchmarks read the echo server's promptness with.
import http from "node:http";
import { echoOnce, openEchoSocket } from "../testkit/ws-echo.js";

/** Spacing of probe starts (ms): often enough for a p99 in seconds, light enough not to load the server. */
export const PACE_MS = 5;

/** Round trips (ms) and the server's own reported event-loop lag (Server-Timing `lag`, ms). */
export async function pacedEcho(url: string, seconds: number): Promise<{ ms: number[]; lag: number[] }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ms: number[] = [];
  const lag: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const s = performance.now();
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${url}/echo`, { agent }, (res) => {
          const m = /lag;dur=([\d.]+)/.exec(String(res.headers["server-timing"] ?? ""));
          if (m) lag.push(Number(m[1]));
          res.resume();
          res.on("end", () => resolve());
        })
        .on("error", reject);
    });
    ms.push(performance.now() - s);
    await new Promise((r) => setTimeout(r, Math.max(0, PACE_MS - (performance.now() - s))));
  }
  agent.destroy();
  return { ms, lag };
}

/** Paced echo messages on one WebSocket, the /ws prober's path; round trips in ms. */
export async function pacedWsEcho(url: string, seconds: number): Promise<number[]> {
  const ws = await openEchoSocket(url);
  const ms: number[] = [];
  const end = performance.now() + seconds * 1000;
  for (let id = 0; performance.now() < end; id++) {
    const s = performance.now();
    await echoOnce(ws, id);
    ms.push(performance.now() - s);
    await new Promise((r) => setTimeout(r, Math.max(0, PACE_MS - (performance.now() - s))));
  }
  ws.close();
  return ms;
}
