// Wires one tailprobe server together: echo paths, API, pages, store, baselines.
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import type { ServeOptions } from "./cli/options.js";
import { startAlerts, type AlertDeps } from "./alerts/alerts.js";
import type { ChangeSource, HealthFeed } from "./alerts/feeds.js";
import { adminRouter } from "./api/admin.js";
import { chartsRouter } from "./api/charts.js";
import { configRouter } from "./api/config.js";
import { jsonErrorHandler, sendError } from "./api/http-error.js";
import { ingestRawPath, ingestRouter, type IngestOptions } from "./api/ingest.js";
import { sampleRules } from "./api/sample-checks.js";
import { queryRouter } from "./api/query.js";
import { racesRouter } from "./api/races.js";
import { stressRouter } from "./api/stress.js";
import { createBaselines } from "./baseline/baselines.js";
import { clientAddress, trustedProxies } from "./client-address.js";
import { createEchoStall, NO_STALL } from "./echo/echo-stall.js";
import { handleEcho } from "./echo/http-echo.js";
import { startLoopLag } from "./echo/loop-lag.js";
import { exportRouter } from "./query/export-route.js";
import { forensicsRouter } from "./query/forensics-routes.js";
import { changesRouter } from "./changes/route.js";
import { createChangeSource } from "./changes/source.js";
import { metricsRouter } from "./query/metrics-route.js";
import { createWsEcho } from "./echo/ws-echo.js";
import { createBudgets } from "./limits/budgets.js";
import { capConnections } from "./limits/connection-caps.js";
import type { HealthMonitor } from "./health/monitor.js";
import { startHealth } from "./health/service.js";
import { incidentsRouter } from "./api/incidents.js";
import { statusRouter } from "./status/status-route.js";
import { createPeerDirectory } from "./peers.js";
import { pageSecurityHeaders } from "./page-security.js";
import { staticPages } from "./static-pages.js";
import { startupStorageMessage, storageHealth } from "./storage-faults.js";
import { createClientDirectory } from "./privacy/public-ids.js";
import { type StoreWithQueries, withQueries } from "./query/with-queries.js";
import { startLoadServers, type LoadServers } from "./stress/load-servers.js";
import { openStoreFor } from "./store/open.js";
import type { Store, StoreOptions } from "./store/store.js";

/**
 * Node's default keep-alive timeout is 5 s; a 1 Hz prober must always find its
 * connection warm, and browsers keep idle sockets for up to ~60 s, so outlast them.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 70_000;
/** Slowest check of the header and request timeouts (ms): a timeout is enforced at most this late. */
const CONNECTIONS_CHECK_MS_MAX = 1000;

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  /** The store, with the queries the routes run over it. */
  store: StoreWithQueries;
  /** Targets' health and incidents as they open and close (server/health/): the HealthFeed. */
  health: HealthMonitor;
  /** The stress test's load listeners; null with --no-stress. */
  load: LoadServers | null;
  close(): Promise<void>;
}

export interface ServerDeps {
  nowMs?: () => number;
  log?: (line: string) => void;
  clientDir?: string;
  /** Mount test-only hooks (POST /api/test/stall); set from TAILPROBE_TEST_HOOKS=1 by the CLI. */
  testHooks?: boolean;
  /** Alert sources in place of the server's own (tests). */
  healthFeed?: HealthFeed;
  changeSource?: ChangeSource;
  /** Shorter alerting timers (tests). */
  alertTuning?: AlertDeps["tuning"];
}

/** The built pages: dist/client beside dist/server, or dist/client from the source tree. */
export function defaultClientDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, "..", "client"), path.resolve(here, "..", "dist", "client")];
  return candidates.find((dir) => fs.existsSync(path.join(dir, "index.html"))) ?? candidates[0]!;
}

/** Opens the database, or fails with what the operator should do (a damaged file is never overwritten). */
async function openStoreOrExplain(dbPath: string, opts: StoreOptions): Promise<Store> {
  try {
    return await openStoreFor(dbPath, opts);
  } catch (err) {
    const message = startupStorageMessage(err, path.resolve(dbPath));
    if (message !== undefined) throw new Error(message, { cause: err });
    throw err;
  }
}

export async function startServer(options: ServeOptions, deps: ServerDeps = {}): Promise<RunningServer> {
  const nowMs = deps.nowMs ?? Date.now;
  const log = deps.log ?? ((line: string) => console.log(line));
  const store = withQueries(
    await openStoreOrExplain(options.dbPath, { log, rawDays: options.rawDays, rollupDays: options.rollupDays, nowMs }),
  );
  let load: LoadServers | null = null;
  try {
    load = options.stress.enabled ? await startLoadServers(options, KEEP_ALIVE_TIMEOUT_MS) : null;
  } catch (err) {
    await store.close();
    throw err;
  }
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
    pingProcessesMax: options.limits.pingProcessesMax,
  });

  const testStall = deps.testHooks === true ? createEchoStall(nowMs) : undefined;
  const stall = testStall ?? NO_STALL;

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
      stress: load === null ? undefined : { downPort: load.ports.down, upPort: load.ports.up },
    }),
  );
  if (testStall !== undefined) app.use(testStall.router());
  const proxies = trustedProxies(options.trustProxy, options.proxyAddresses);
  const addressOf = (req: http.IncomingMessage) => clientAddress(req, proxies);
  // Budgets refill on the monotonic clock: a wall-clock step must not empty or fill them.
  const budgets = createBudgets(options.limits, addressOf, () => performance.now());
  const storage = storageHealth(store.location, log);
  const clients = createClientDirectory(store.publicIdKey, () => store.storedClientIds());
  const health = startHealth({
    observer: options.name,
    nowMs,
    log,
    peers: () => peers.list(),
    deploymentTargets: () => store.deploymentTargets(),
    timeoutMs: options.timeoutMs,
    publicIdKey: store.publicIdKey,
    publicId: (clientId) => clients.publicId(clientId),
    addClient: (clientId) => clients.add(clientId),
    insertBatch: (batch) => store.insertBatch(batch, { userAgent: null, receivedAtMs: nowMs() }),
    incidents: store.incidents,
  });
  const ingestOptions: IngestOptions = {
    nowMs,
    admit: budgets.admitIngest,
    storage,
    trustedProxies: proxies,
    clients,
    rules: sampleRules({
      nowMs,
      rawDays: options.rawDays,
      ownName: options.name,
      peerNames: () => peers.list().map((p) => p.name),
      deployment: { targets: () => store.deploymentTargets(), announce: (targets) => store.announceTargets(targets) },
    }),
    onStored: health.onStored,
  };
  const ingestRaw = ingestRawPath(store, ingestOptions);
  app.use(ingestRouter(store, ingestOptions));
  if (options.adminToken !== undefined)
    app.use(
      adminRouter(store, {
        token: options.adminToken,
        nowMs,
        rawDays: options.rawDays,
        clients,
        budget: budgets.ingest,
        log,
      }),
    );
  app.use(queryRouter(store, nowMs, clients));
  app.use(chartsRouter(store, nowMs, clients));
  app.use(racesRouter(store, nowMs, clients));
  app.use(stressRouter(store, { nowMs, trustedProxies: proxies, admit: budgets.ingest, clients }));
  app.use(exportRouter(store, nowMs, clients));
  app.use(metricsRouter(store));
  app.use(forensicsRouter(store, nowMs, clients));
  app.use(changesRouter(store, clients));
  app.use(incidentsRouter(store.incidents, nowMs));
  app.use(pageSecurityHeaders(options.peers, options.tlsCertPath !== undefined));
  const servers = () => [options.name, ...peers.list().map((p) => p.name), ...store.deploymentTargets()];
  app.use(
    statusRouter({
      nowMs,
      servers: () => [...new Set(servers())],
      health: health.monitor,
      queries: store,
      incidents: store.incidents,
    }),
  );
  app.use(staticPages(deps.clientDir ?? defaultClientDir()));
  app.use((_req, res) => sendError(res, 404, "NOT_FOUND", "no such path"));
  app.use(jsonErrorHandler);

  const onRequest: http.RequestListener = (req, res) => {
    if (!handleEcho(req, res, lag, stall, budgets.admitEcho) && !ingestRaw(req, res)) app(req, res);
  };
  const limits = options.limits;
  const httpOptions: http.ServerOptions = {
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // A slow-loris client trickling headers or a body is dropped at these; an
    // idle keep-alive connection is governed by keepAliveTimeout instead.
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks the two timeouts above only this often (ms; its default is 30 s).
    connectionsCheckingInterval: Math.min(CONNECTIONS_CHECK_MS_MAX, Math.ceil(limits.headersTimeoutMs / 4)),
  };
  const server =
    options.tlsCertPath !== undefined && options.tlsKeyPath !== undefined
      ? https.createServer(
          { ...httpOptions, cert: fs.readFileSync(options.tlsCertPath), key: fs.readFileSync(options.tlsKeyPath) },
          onRequest,
        )
      : http.createServer(httpOptions, onRequest);
  capConnections(server, {
    connectionsMax: limits.connectionsMax,
    connectionsPerAddress: limits.connectionsPerAddress,
    trusted: proxies,
  });

  const wsHooks = {
    onClient: baselines.onClient,
    onClientGone: baselines.onClientGone,
    onHealthNote: health.onHealthNote,
  };
  const wsEcho = createWsEcho(options.name, wsHooks, addressOf, limits, stall);
  server.on("upgrade", (req, socket, head) => wsEcho.handleUpgrade(req, socket, head));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  }).catch(async (err: unknown) => {
    await load?.close();
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  const scheme = options.tlsCertPath !== undefined ? "https" : "http";
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const displayHost = host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host;
  baselines.setLocalPort(port);
  const url = `${scheme}://${displayHost}:${port}`;
  const alerts = await startAlerts(options.alerts, {
    serverName: options.name,
    queries: store,
    state: store.alertState,
    publicId: (clientKey) => clients.publicId(clientKey),
    externalUrl: () => url,
    health: deps.healthFeed ?? health.monitor,
    changes: deps.changeSource ?? createChangeSource(store, clients),
    nowMs,
    log,
    tuning: deps.alertTuning,
  });

  return {
    url,
    port,
    store,
    health: health.monitor,
    load,
    async close() {
      await load?.close();
      await alerts.stop();
      await health.stop();
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
