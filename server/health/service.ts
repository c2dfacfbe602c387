// Health, put together for one server: the monitor (the HealthFeed), this
// server's own probes of its peers and their samples, and the hooks the
// ingest route and the WebSocket echo call. app.ts wires it in.
import type { SampleBatch, ServerInfo } from "../../shared/contract/index.js";
import type { HealthNoteSample } from "../../shared/contract/ws.js";
import type { WsClient } from "../echo/ws-echo.js";
import type { IngestDigest } from "../ingest/read-batch.js";
import { createHealthMonitor, type HealthMonitor, type IncidentSink } from "./monitor.js";
import { createPeerProber } from "./peer-prober.js";
import { createPeerSamples } from "./peer-samples.js";

export interface HealthServiceOptions {
  observer: string;
  nowMs: () => number;
  log: (line: string) => void;
  peers: () => readonly ServerInfo[];
  /** Every server of the deployment (PostgreSQL: those other servers announced). */
  deploymentTargets: () => readonly string[];
  /** The pages' probe timeout (ms): the server's own probes use it too. */
  timeoutMs: number;
  publicIdKey: Buffer;
  publicId: (clientId: string) => string;
  /** Learns a client id (the prober's), so its public id can be looked up. */
  addClient: (clientId: string) => void;
  insertBatch: (batch: SampleBatch) => Promise<unknown>;
  incidents?: IncidentSink | undefined;
}

export interface HealthService {
  monitor: HealthMonitor;
  /** For IngestOptions.onStored. */
  onStored(digest: IngestDigest): void;
  /** For WsEchoHooks.onHealthNote. */
  onHealthNote(client: WsClient, samples: readonly HealthNoteSample[]): void;
  stop(): Promise<void>;
}

export function startHealth(o: HealthServiceOptions): HealthService {
  const monitor = createHealthMonitor({
    observer: o.observer,
    nowMs: o.nowMs,
    log: o.log,
    targets: () => [...o.peers().map((p) => p.name), ...o.deploymentTargets()],
    publicId: o.publicId,
    incidents: o.incidents,
  });
  const samples = createPeerSamples({
    observer: o.observer,
    key: o.publicIdKey,
    insertBatch: o.insertBatch,
    onObservation: (obs) => monitor.onPeerProbe(obs),
    log: o.log,
  });
  o.addClient(samples.clientId);
  const prober = createPeerProber({
    peers: o.peers,
    timeoutMs: o.timeoutMs,
    nowMs: o.nowMs,
    log: o.log,
    onResult: (method, target, t, r) => samples.record(method, target, t, r),
  });
  return {
    monitor,
    onStored: (d) => monitor.onReport(d),
    onHealthNote: (client, notes) => monitor.onNote(client.clientId, client.sessionId, notes),
    async stop() {
      prober.stop();
      monitor.stop();
      await samples.stop();
    },
  };
}
