// The server's own probes of its peers become evidence at once (the health
// monitor) and samples of their own series in the store, as the probes of a
// client of their own: the probing server (label "server A"), batched like a
// page's reports. Its clientId is derived from the database's key, so every
// server on one database gives the same server the same client, and no page
// can guess it to post samples in its name.
import { createHmac, randomBytes } from "node:crypto";
import type { Sample, SampleBatch } from "../../shared/contract/index.js";
import type { PeerMethod } from "../../shared/methods.js";
import type { Observation } from "./evidence.js";
import type { PeerProbeResult } from "./peer-http-probe.js";

/** Stored every this often (ms), as a page reports. */
export const PEER_BATCH_MS = 5000;
/** Samples waiting at most while the store fails; the oldest are dropped (the monitor has seen them anyway). */
export const PEER_QUEUE_MAX = 10_000;

export interface PeerSampleOptions {
  observer: string;
  /** The database's public-id key (Store.publicIdKey). */
  key: Buffer;
  insertBatch(batch: SampleBatch): Promise<unknown>;
  onObservation(o: Observation): void;
  log: (line: string) => void;
  batchMs?: number;
}

export interface PeerSamples {
  /** The prober's onResult. */
  record(method: PeerMethod, target: string, t: number, r: PeerProbeResult): void;
  /** The prober's client id (the secret behind its public id). */
  readonly clientId: string;
  /** Stores what is queued now. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** What the client ids of servers' own probes start with: a page's are hex, so never this. */
export const PEER_PROBER_ID_PREFIX = "srv_";

/** The probing server's client id: `srv_` and 22 base64url characters of a keyed hash of its name. */
export function peerProberClientId(key: Buffer, observer: string): string {
  return `${PEER_PROBER_ID_PREFIX}${createHmac("sha256", key).update(`peer-prober:${observer}`).digest("base64url").slice(0, 22)}`;
}

export function createPeerSamples(o: PeerSampleOptions): PeerSamples {
  const clientId = peerProberClientId(o.key, o.observer);
  const sessionId = `srv_${randomBytes(16).toString("base64url")}`;
  let seq = 0;
  let queue: Sample[] = [];
  let writing: Promise<void> = Promise.resolve();
  let failing = false;
  /** Peers that have answered at least once since this server started. */
  const answered = new Set<string>();

  const flush = () => {
    writing = writing.then(async () => {
      if (queue.length === 0) return;
      const samples = queue.slice(0, 1000);
      try {
        await o.insertBatch({ clientId, sessionId, label: `server ${o.observer}`, samples });
        queue = queue.slice(samples.length);
        if (failing) o.log("tailprobe: this server's probes of its peers are stored again");
        failing = false;
      } catch (err) {
        if (!failing) o.log(`tailprobe: this server's probes of its peers not stored: ${(err as Error).message}`);
        failing = true;
      }
    });
    return writing;
  };
  const timer = setInterval(() => void flush(), o.batchMs ?? PEER_BATCH_MS);
  timer.unref();

  return {
    clientId,
    record(method, target, t, r) {
      o.onObservation({
        t,
        method,
        target,
        outcome: r.outcome,
        ms: r.ms,
        lateMs: null,
        hidden: false,
        froze: false,
        serverMs: r.serverMs ?? null,
        reason: r.reason ?? null,
      });
      // The series starts at the peer's first answer: a peer that never
      // answered (a misspelt --peer, one not started yet) is judged, but its
      // stream of failures is not stored.
      if (r.outcome === "ok") answered.add(target);
      if (!answered.has(target)) return;
      const s: Sample = { seq: seq++, t, method, target, ms: r.ms, outcome: r.outcome };
      if (r.reason !== undefined) s.reason = r.reason;
      if (r.serverMs !== undefined) s.serverMs = r.serverMs;
      queue.push(s);
      if (queue.length > PEER_QUEUE_MAX) queue.splice(0, queue.length - PEER_QUEUE_MAX);
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
