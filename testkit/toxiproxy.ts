// Toxiproxy (github.com/Shopify/toxiproxy, v2.5.0, built by .ci/run) as a
// child process on loopback: a TCP proxy whose latency a test sets through
// its HTTP API. The kernel here has no netem, so this is how a test injects
// a known delay between a browser and a server.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { freePort } from "./free-port.js";

/** Where the binary is looked for: $TAILPROBE_TOXIPROXY, then .ci/run's install path, then PATH. */
export function toxiproxyBinary(): string {
  const candidates = [process.env.TAILPROBE_TOXIPROXY, "/usr/local/bin/toxiproxy-server"].filter(
    (p): p is string => p !== undefined,
  );
  return candidates.find((p) => fs.existsSync(p)) ?? "toxiproxy-server";
}

/** Startup budget for the API to answer (ms). */
const START_TIMEOUT_MS = 10_000;

export interface Toxiproxy {
  /**
   * Creates a proxy in front of upstream ("127.0.0.1:PORT") listening on
   * `listen` (default a free port on 127.0.0.1; another loopback address such
   * as 127.0.0.2 lets a browser reach the same port through it); returns its "ADDRESS:PORT".
   */
  proxy(name: string, upstream: string, listen?: string): Promise<string>;
  /** Adds `latencyMs` (no jitter) to every chunk flowing the given way through the proxy. */
  addLatency(proxy: string, toxic: string, latencyMs: number, stream: "downstream" | "upstream"): Promise<void>;
  removeToxic(proxy: string, toxic: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startToxiproxy(): Promise<Toxiproxy> {
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(toxiproxyBinary(), ["-host", "127.0.0.1", "-port", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const spawnError = new Promise<never>((_, reject) =>
    child.once("error", (e) => reject(new Error(`cannot run ${toxiproxyBinary()}: ${e.message} (see .ci/run)`))),
  );
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const up = await Promise.race([
      fetch(`${api}/version`).then(
        (r) => r.ok,
        () => false,
      ),
      spawnError,
    ]);
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`toxiproxy did not start:\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`toxiproxy ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : ((await res.json()) as unknown);
  };
  return {
    async proxy(name, upstream, listen = "127.0.0.1:0") {
      const p = (await call("POST", "/proxies", { name, listen, upstream, enabled: true })) as {
        listen: string;
      };
      return p.listen;
    },
    async addLatency(proxy, toxic, latencyMs, stream) {
      await call("POST", `/proxies/${proxy}/toxics`, {
        name: toxic,
        type: "latency",
        stream,
        toxicity: 1,
        attributes: { latency: latencyMs, jitter: 0 },
      });
    },
    async removeToxic(proxy, toxic) {
      await call("DELETE", `/proxies/${proxy}/toxics/${toxic}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
