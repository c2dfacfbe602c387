// The load thread: the stress test's two listeners (downloads, uploads), off
// the main thread, so that moving a gigabit of load costs the echo paths,
// the WebSockets and the baselines on the main event loop nothing but CPU
// time the kernel shares out. Started by load-servers.ts, which it answers
// with the ports it listens on.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { clientAddress, trustedProxies } from "../client-address.js";
import { capConnections } from "../limits/connection-caps.js";
import { LIMITER_ADDRESSES_MAX } from "../limits/limits-config.js";
import { StressBudget } from "../limits/stress-budget.js";
import { StressPacing } from "../limits/stress-pacing.js";
import { loadHandler } from "./load-paths.js";
import type { LoadThreadInit, LoadThreadReply, LoadThreadRequest } from "./load-protocol.js";

const init = workerData as LoadThreadInit;
const post = (m: LoadThreadReply) => parentPort!.postMessage(m);

/**
 * The load is the least urgent work of the server: at nice 19 its thread
 * yields the cores to the event loop (echo, WebSockets, baselines) whenever
 * both want one, so another page's probes wait on the load as little as the
 * kernel allows. Linux's nice is per thread; lowering it needs no privilege.
 */
export const LOAD_THREAD_NICE = 19;

function lowerOwnPriority(): string | null {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid)) return "no thread id";
    os.setPriority(tid, LOAD_THREAD_NICE);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

async function main(): Promise<void> {
  // Off Linux (no /proc/thread-self) the thread keeps the process's priority.
  lowerOwnPriority();
  const proxies = trustedProxies(init.trustProxy, init.proxyAddresses);
  const budget = new StressBudget({
    perAddress: init.perAddress,
    bytesPerHour: init.bytesPerHour,
    streamsPerAddress: init.streamsPerAddress,
    streamsMax: init.streamsMax,
    addressesMax: LIMITER_ADDRESSES_MAX,
    // Refilled on the monotonic clock: a wall-clock step must not empty or fill a budget.
    nowMs: () => performance.now(),
  });
  const pacing = new StressPacing({
    mbpsPerAddress: init.mbpsPerAddress,
    addressesMax: LIMITER_ADDRESSES_MAX,
    nowMs: () => performance.now(),
  });
  const handler = loadHandler({ budget, pacing, address: (req) => clientAddress(req, proxies) });
  const options: http.ServerOptions = {
    keepAliveTimeout: init.keepAliveTimeoutMs,
    headersTimeout: init.headersTimeoutMs,
    requestTimeout: init.requestTimeoutMs,
  };
  const tls =
    init.tlsCertPath !== undefined && init.tlsKeyPath !== undefined
      ? { cert: fs.readFileSync(init.tlsCertPath), key: fs.readFileSync(init.tlsKeyPath) }
      : null;
  const servers = [0, 1].map(() => {
    const s = tls === null ? http.createServer(options, handler) : https.createServer({ ...options, ...tls }, handler);
    capConnections(s, {
      connectionsMax: init.connectionsMax,
      connectionsPerAddress: init.connectionsPerAddress,
      trusted: proxies,
    });
    return s;
  });
  const listen = (s: http.Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, init.host, () => {
        s.off("error", reject);
        resolve((s.address() as AddressInfo).port);
      });
    });
  const down = await listen(servers[0]!, init.port);
  const up = await listen(servers[1]!, init.port === 0 ? 0 : init.port + 1);
  parentPort!.on("message", (m: LoadThreadRequest) => {
    if (m.type === "stats") return post({ type: "stats", id: m.id, openStreams: budget.openStreams });
    if (m.type !== "close") return;
    for (const s of servers) s.closeAllConnections();
    Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(() =>
      parentPort!.close(),
    );
  });
  post({ type: "ready", ports: { down, up } });
}

main().catch((err: unknown) => {
  const e = err as NodeJS.ErrnoException;
  post({ type: "failed", code: e.code ?? null, message: e.message ?? String(err) });
});
