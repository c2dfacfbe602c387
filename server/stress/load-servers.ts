// Starts the stress test's load thread (load-thread.ts) and tells the server
// where its two listeners are. One thread for both: the load is bytes through
// sockets, and what must stay off the main event loop is its CPU time.
import { Worker } from "node:worker_threads";
import type { ServeOptions } from "../cli/options.js";
import type { LoadThreadInit, LoadThreadReply, LoadThreadRequest } from "./load-protocol.js";

/**
 * A whole load request must arrive within this (ms): the page sizes its
 * bodies to about a second of its goodput, so this is a 64 MiB body at 4.5
 * Mbit/s, far beyond any honest request.
 */
export const LOAD_REQUEST_TIMEOUT_MS = 120_000;

export interface LoadServers {
  /** The ports the load paths listen on: downloads, uploads. */
  ports: { down: number; up: number };
  /** Load streams open now (for tests and benchmarks). */
  openStreams(): Promise<number>;
  close(): Promise<void>;
}

/** An error starting the load listeners, with the errno code (EADDRINUSE) when there is one. */
export class LoadServersError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "LoadServersError";
  }
}

export async function startLoadServers(o: ServeOptions, keepAliveTimeoutMs: number): Promise<LoadServers> {
  const init: LoadThreadInit = {
    host: o.host,
    port: o.stress.port,
    tlsCertPath: o.tlsCertPath,
    tlsKeyPath: o.tlsKeyPath,
    trustProxy: o.trustProxy,
    proxyAddresses: o.proxyAddresses,
    perAddress: o.limits.rateLimit,
    bytesPerHour: o.stress.bytesPerHour,
    streamsPerAddress: o.stress.streamsPerAddress,
    streamsMax: o.stress.streamsMax,
    // --no-rate-limit lifts every per-address budget, the rate too (lab runs, benchmarks).
    mbpsPerAddress: o.limits.rateLimit ? o.stress.mbpsPerAddress : 0,
    connectionsMax: o.limits.connectionsMax,
    connectionsPerAddress: o.limits.connectionsPerAddress,
    keepAliveTimeoutMs,
    headersTimeoutMs: o.limits.headersTimeoutMs,
    requestTimeoutMs: Math.max(LOAD_REQUEST_TIMEOUT_MS, o.limits.headersTimeoutMs),
  };
  // Under vitest or tsx the sources are TypeScript: the thread registers tsx first (as the writer thread does).
  const ts = import.meta.url.endsWith(".ts");
  const entry = new URL(`./load-thread.${ts ? "ts" : "js"}`, import.meta.url);
  const worker = ts
    ? new Worker(
        `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`,
        { eval: true, workerData: init },
      )
    : new Worker(entry, { workerData: init });
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const pending = new Map<number, (n: number) => void>();
  let nextId = 0;
  const ports = await new Promise<{ down: number; up: number }>((resolve, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new LoadServersError(`the load thread exited (${code})`, null)));
    worker.on("message", (m: LoadThreadReply) => {
      if (m.type === "ready") resolve(m.ports);
      else if (m.type === "failed") {
        reject(new LoadServersError(`stress test load paths: ${m.message}`, m.code));
        void worker.terminate();
      } else pending.get(m.id)?.(m.openStreams);
    });
  });
  const send = (m: LoadThreadRequest) => worker.postMessage(m);
  return {
    ports,
    openStreams: () =>
      new Promise<number>((resolve) => {
        const id = nextId++;
        pending.set(id, (n) => {
          pending.delete(id);
          resolve(n);
        });
        send({ type: "stats", id });
      }),
    async close() {
      send({ type: "close" });
      await exited;
    },
  };
}
