// Wires one tailprobe server together: echo paths, API, pages, store, baselines.
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import type { ServeOptions } from "./cli/options.js";
import { chartsRouter } from "./api/charts.js";
import { configRouter } from "./api/config.js";
import { jsonErrorHandler, sendError } from "./api/http-error.js";
import { ingestRouter } from "./api/ingest.js";
import { queryRouter } from "./api/query.js";
import { racesRouter } from "./api/races.js";
import { createBaselines } from "./baseline/baselines.js";
import { clientAddress, trustedProxies } from "./client-address.js";
import { handleEcho } from "./echo/http-echo.js";
import { startLoopLag } from "./echo/loop-lag.js";
import { createWsEcho } from "./echo/ws-echo.js";
import { createPeerDirectory } from "./peers.js";
import { staticPages } from "./static-pages.js";
import { openStoreThreaded, type Store } from "./store/store.js";

/**
 * Node's default keep-alive timeout is 5 s; a 1 Hz prober must always find its
 * connection warm, and browsers keep idle sockets for up to ~60 s, so outlast them.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 70_000;

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  store: Store;
  close(): Promise<void>;
}

export interface ServerDeps {
  nowMs?: () => number;
  log?: (line: string) => void;
  clientDir?: string;
}

/** The built pages: dist/client beside dist/server, or dist/client from the source tree. */
export function defaultClientDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, "..", "client"), path.resolve(here, "..", "dist", "client")];
  return candidates.find((dir) => fs.existsSync(path.join(dir, "index.html"))) ?? candidates[0]!;
}

export async function startServer(options: ServeOptions, deps: ServerDeps = {}): Promise<RunningServer> {
  const nowMs = deps.nowMs ?? Date.now;
  const log = deps.log ?? ((line: string) => console.log(line));
  const store = await openStoreThreaded(options.dbPath, { log, rawDays: options.rawDays, rollupDays: options.rollupDays, nowMs });
  const lag = startLoopLag();
  const peers = createPeerDirectory(options.name, options.peers, log);
  const baselines = createBaselines({
    serverName: options.name,
    ping: options.ping,
    nowMs,
    log,
    intervalMs: options.intervalMs,
    timeoutMs: options.timeoutMs,
    pingCommand: options.pingCommand,
    trustProxy: options.trustProxy,
  });

  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("query parser", "simple");
  app.use(
    configRouter({
      name: options.name,
      intervalMs: options.intervalMs,
      timeoutMs: options.timeoutMs,
      peers: () => peers.list(),
      baselines: () => baselines.status(),
    }),
  );
  app.use(ingestRouter(store, nowMs));
  app.use(queryRouter(store, nowMs));
  app.use(chartsRouter(store, nowMs));
  app.use(racesRouter(store, nowMs));
  app.use(staticPages(deps.clientDir ?? defaultClientDir()));
  app.use((_req, res) => sendError(res, 404, "NOT_FOUND", "no such path"));
  app.use(jsonErrorHandler);

  const onRequest: http.RequestListener = (req, res) => {
    if (!handleEcho(req, res, lag)) app(req, res);
  };
  const server =
    options.tlsCertPath !== undefined && options.tlsKeyPath !== undefined
      ? https.createServer(
          { cert: fs.readFileSync(options.tlsCertPath), key: fs.readFileSync(options.tlsKeyPath) },
          onRequest,
        )
      : http.createServer(onRequest);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;

  const proxies = trustedProxies(options.trustProxy, options.proxyAddresses);
  const wsEcho = createWsEcho(options.name, baselines, (req) => clientAddress(req, proxies));
  server.on("upgrade", (req, socket, head) => wsEcho.handleUpgrade(req, socket, head));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const scheme = options.tlsCertPath !== undefined ? "https" : "http";
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const displayHost = host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host;
  baselines.setLocalPort(port);

  return {
    url: `${scheme}://${displayHost}:${port}`,
    port,
    store,
    async close() {
      peers.stop();
      baselines.stop();
      wsEcho.close();
      lag.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}
