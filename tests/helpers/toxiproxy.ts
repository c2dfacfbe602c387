// Toxiproxy (/usr/local/bin/toxiproxy-server, installed by .ci/run) in front
// of a server: a TCP proxy on loopback whose latency a test can raise and
// lower, the only way to slow one server's path here (the kernel has no netem).
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { waitFor } from "./server-process.js";

export const TOXIPROXY_BIN = process.env.TAILPROBE_TOXIPROXY ?? "toxiproxy-server";

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface Toxiproxy {
  /** Where clients connect instead of the upstream: http://127.0.0.1:PORT */
  url: string;
  /** Adds `latencyMs` to every byte from the upstream to its clients, on open connections too. */
  addLatency(latencyMs: number): Promise<void>;
  removeLatency(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts toxiproxy-server and one proxy to `upstreamPort` on 127.0.0.1. */
export async function startToxiproxy(upstreamPort: number): Promise<Toxiproxy> {
  const apiPort = await freePort();
  const listenPort = await freePort();
  const child: ChildProcess = spawn(TOXIPROXY_BIN, ["-host", "127.0.0.1", "-port", String(apiPort)], { stdio: "ignore" });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const api = `http://127.0.0.1:${apiPort}`;
  await waitFor(async () => ((await fetch(`${api}/version`).catch(() => null))?.ok ? true : undefined), 10_000, "toxiproxy-server to start");
  const created = await fetch(`${api}/proxies`, {
    method: "POST",
    body: JSON.stringify({ name: "path", listen: `127.0.0.1:${listenPort}`, upstream: `127.0.0.1:${upstreamPort}`, enabled: true }),
  });
  if (!created.ok) throw new Error(`toxiproxy: creating the proxy answered ${created.status}: ${await created.text()}`);
  return {
    url: `http://127.0.0.1:${listenPort}`,
    async addLatency(latencyMs) {
      const res = await fetch(`${api}/proxies/path/toxics`, {
        method: "POST",
        body: JSON.stringify({ name: "spike", type: "latency", stream: "downstream", toxicity: 1, attributes: { latency: latencyMs, jitter: 0 } }),
      });
      if (!res.ok) throw new Error(`toxiproxy: adding latency answered ${res.status}: ${await res.text()}`);
    },
    async removeLatency() {
      const res = await fetch(`${api}/proxies/path/toxics/spike`, { method: "DELETE" });
      if (!res.ok) throw new Error(`toxiproxy: removing latency answered ${res.status}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
