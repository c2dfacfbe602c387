// Server-side baselines towards each connected page: ICMP ping, WebSocket
// ping frames and the kernel's TCP RTT. They are pushed to the page over its
// WebSocket once per interval; the page reports them home with its own
// samples, so a peer's baselines reach the home database with no set-up.
import type { WebSocket } from "ws";
import type { BaselineSample, BaselineStatus, ServerWsMessage } from "../../shared/contract/index.js";
import type { WsClient, WsEchoHooks } from "../echo/ws-echo.js";
import { redactAddresses } from "../privacy/addresses.js";
import { PingerPool } from "./pinger.js";
import type { PingResult } from "./ping-sequence.js";
import { endpointKey } from "./ss-parse.js";
import { ssReader, type TcpInfoAvailability, type TcpInfoReader } from "./tcp-info.js";
import { startSpawner } from "../platform/spawner.js";
import { WsPinger } from "./wsping.js";

/**
 * Baselines never run faster than this (ms), whatever the probe interval: an
 * ss process and a ping frame per page 100 times a second (a 10 ms soak run)
 * would measure their own load. iputils' own floor for ping is the same.
 */
export const BASELINE_INTERVAL_MS_MIN = 200;
/** The wire message's limit on samples per baseline message. */
const SAMPLES_PER_MESSAGE_MAX = 100;
/** Samples a page that stopped reading may queue before the oldest are dropped. */
const QUEUE_MAX = 600;
/**
 * Samples measured for a page whose WebSocket closed before they were pushed
 * wait this long (ms) for a page of the same client to connect (a reload, a
 * network blip) and go to it; after that nobody can carry them home.
 */
export const ORPHAN_TTL_MS = 120_000;
/** Clients whose orphaned samples are kept at most; the oldest go first. */
const ORPHAN_CLIENTS_MAX = 1000;

export interface BaselineOptions {
  serverName: string;
  /** false: --no-ping. */
  ping: boolean;
  nowMs: () => number;
  log: (line: string) => void;
  /** Baseline interval (ms), the pages' probe interval. Default 1000. */
  intervalMs?: number;
  /** A baseline unanswered for this long (ms) is a timeout. Default 5000. */
  timeoutMs?: number;
  /** The ping binary (default "ping" from PATH). */
  pingCommand?: string | undefined;
  /** Client addresses come from X-Forwarded-For: TCP then ends at the proxy, not at the page. */
  trustProxy?: boolean;
  /** How long a pinger outlives its last tab (ms). */
  pingLingerMs?: number;
  /** Ping processes at once, loopback not counted (default in pinger.ts). */
  pingProcessesMax?: number;
  tcpInfo?: TcpInfoReader;
  /** The centre of the half interval in which pages get their ping frames, as a fraction of the interval after the ss run (0..1). Default 0.5. */
  wsPingPhase?: number;
}

export interface Baselines extends WsEchoHooks {
  status(): Record<string, BaselineStatus>;
  setLocalPort(port: number): void;
  /** Addresses with a running ping process (read-only view for tests and diagnostics). */
  pingAddresses(): string[];
  stop(): void;
}

interface ClientState {
  client: WsClient;
  /** Per-connection sample id, so the page never reports one sample twice. */
  nextId: number;
  queue: BaselineSample[];
  wsPinger: WsPinger;
  /** Ping readings numbered from this one on were pushed to this page too (if from its address). */
  firstPingReading: number;
  /** The slot of the interval in which this page gets its ping frame and its queued samples. */
  slot: number;
}

/**
 * Each page's ping frame and push go out in its own slot of the interval,
 * slots at least this long (ms). Sent to every page in one pass, at 2,000
 * tabs they were two stalls of 15-40 ms a second (a write to each socket),
 * the capacity run's slowest echoes.
 */
const SLOT_MS_MIN = 10;
const SLOTS_MAX = 50;

export function createBaselines(options: BaselineOptions): Baselines {
  const intervalMs = Math.max(options.intervalMs ?? 1000, BASELINE_INTERVAL_MS_MIN);
  const timeoutMs = options.timeoutMs ?? 5000;
  const { nowMs, log, serverName } = options;
  const clients = new Map<WsClient, ClientState>();
  const byAddress = new Map<string, Set<ClientState>>();
  // ss and the pings are started by a helper process started now, while the
  // server is small: forked from the server itself at 2,000 tabs each cost
  // its event loop ~20 ms (server/platform/spawner.ts).
  const usesSs = options.tcpInfo === undefined && options.trustProxy !== true && process.platform === "linux";
  const spawner = options.ping || usesSs ? startSpawner(log) : undefined;
  const tcpInfo = options.tcpInfo ?? ssReader("ss", spawner?.spawn);
  let localPort: number | undefined;
  let tcpAvailability: TcpInfoAvailability | undefined;
  let ssRunning = false;
  /** The ss failure last logged: samples carry only "ss-failed"; the log says why, once per failure. */
  let ssErrorLogged: string | undefined;
  const slotCount = Math.max(1, Math.min(SLOTS_MAX, Math.floor(intervalMs / SLOT_MS_MIN)));
  // Ping frames keep half an interval from the ss run (slot 0): an ss run (a
  // fork and a netlink dump, then its parse) delays the event loop enough to
  // inflate pong times that coincide with it. Pages take the slots of the
  // middle half of the interval around wsPingPhase.
  const windowSlots = Math.max(1, Math.round(slotCount / 2));
  const windowCenter = Math.round(slotCount * (options.wsPingPhase ?? 0.5));
  const slots = Array.from({ length: slotCount }, () => new Set<ClientState>());
  let slotTimer: ReturnType<typeof setInterval> | undefined;
  let slotAt = 0;
  /** Per clientId: samples not yet pushed when its last socket closed, and until when they wait. */
  const orphans = new Map<string, { samples: BaselineSample[]; untilMs: number }>();

  function adoptOrphans(st: ClientState): void {
    const now = nowMs();
    for (const [clientId, o] of orphans) if (o.untilMs < now) orphans.delete(clientId);
    const o = orphans.get(st.client.clientId);
    if (o === undefined) return;
    orphans.delete(st.client.clientId);
    // New ids: the page numbers a connection's samples by their id.
    for (const s of o.samples) st.queue.push({ ...s, id: st.nextId++ });
  }

  function orphan(st: ClientState): void {
    if (st.queue.length === 0) return;
    const clientId = st.client.clientId;
    // A page of the same client already connected (a reload whose old socket
    // closed late) carries them now, minus the ping readings it got itself.
    let heir: ClientState | undefined;
    for (const other of clients.values()) if (other !== st && other.client.clientId === clientId) heir = other;
    if (heir !== undefined) {
      const h = heir;
      const sameAddress = h.client.address === st.client.address;
      for (const s of st.queue) {
        const reading = pingReadingOf.get(s);
        if (sameAddress && reading !== undefined && reading >= h.firstPingReading) continue;
        h.queue.push({ ...s, id: h.nextId++ });
      }
      if (h.queue.length > QUEUE_MAX) h.queue.splice(0, h.queue.length - QUEUE_MAX);
      return;
    }
    const before = orphans.get(clientId)?.samples ?? [];
    orphans.delete(clientId); // re-inserted last: Map order is age order
    orphans.set(clientId, { samples: [...before, ...st.queue].slice(-QUEUE_MAX), untilMs: nowMs() + ORPHAN_TTL_MS });
    if (orphans.size > ORPHAN_CLIENTS_MAX) orphans.delete(orphans.keys().next().value!);
  }

  const push = (st: ClientState, s: Omit<BaselineSample, "id" | "target">): BaselineSample => {
    // Built field by field: spread and a delete made each of the ~6,000 a second at
    // 2,000 tabs a dictionary-mode object, and they live in the queue until the push.
    const sample: BaselineSample = {
      id: st.nextId++,
      target: serverName,
      method: s.method,
      t: s.t,
      ms: s.ms,
      outcome: s.outcome,
    };
    if (s.minrtt !== undefined) sample.minrtt = s.minrtt;
    if (s.reason !== undefined) sample.reason = s.reason;
    st.queue.push(sample);
    if (st.queue.length > QUEUE_MAX) st.queue.splice(0, st.queue.length - QUEUE_MAX);
    return sample;
  };
  /** One number per ping reading (shared by every page it was pushed to), to hand orphans over without copies. */
  let pingReadings = 0;
  const pingReadingOf = new WeakMap<BaselineSample, number>();

  const pingPool = options.ping
    ? new PingerPool({
        command: options.pingCommand ?? "ping",
        intervalMs,
        timeoutMs,
        lingerMs: options.pingLingerMs,
        processesMax: options.pingProcessesMax,
        spawn: spawner?.spawn,
        nowMs,
        log,
        onResult(address: string, r: PingResult) {
          // Attributed to every page connected from that address.
          const reading = ++pingReadings;
          for (const st of byAddress.get(address) ?? [])
            pingReadingOf.set(
              push(st, { method: "ping", t: r.t, ms: r.ms, outcome: r.outcome, reason: r.reason }),
              reading,
            );
        },
      })
    : undefined;

  if (options.trustProxy) {
    tcpAvailability = {
      available: false,
      code: "behind-proxy",
      reason: "with --trust-proxy the TCP connection ends at the proxy, not at the page",
    };
  } else {
    void tcpInfo.check().then((a) => {
      tcpAvailability = a;
      if (!a.available)
        log(`tailprobe: kernel TCP RTT baseline unavailable: ${a.reason}; every other method keeps working`);
    });
  }

  async function measureTcp(): Promise<void> {
    if (tcpAvailability?.available !== true || localPort === undefined || clients.size === 0) return;
    const t = nowMs();
    if (ssRunning) {
      for (const st of clients.values())
        push(st, { method: "tcprtt", t, ms: null, outcome: "error", reason: "ss-busy" });
      return;
    }
    ssRunning = true;
    const conns = await tcpInfo.read(localPort).finally(() => (ssRunning = false));
    if (!conns.ok && ssErrorLogged !== conns.error)
      log(`tailprobe: ss failed; tcprtt ticks are errors until it works: ${conns.error}`);
    ssErrorLogged = conns.ok ? undefined : conns.error;
    for (const st of clients.values()) {
      if (!conns.ok) {
        push(st, { method: "tcprtt", t, ms: null, outcome: "error", reason: "ss-failed" });
        continue;
      }
      const c = conns.value.get(endpointKey(st.client.socketAddress, st.client.remotePort));
      if (c === undefined || c.rttMs === undefined) {
        push(st, { method: "tcprtt", t, ms: null, outcome: "error", reason: "no-tcp-info" });
        continue;
      }
      const s: Omit<BaselineSample, "id" | "target"> = { method: "tcprtt", t, ms: c.rttMs, outcome: "ok" };
      if (c.minRttMs !== undefined) s.minrtt = c.minRttMs;
      push(st, s);
    }
  }

  function flush(st: ClientState): void {
    const socket: WebSocket = st.client.socket;
    if (st.queue.length === 0 || socket.readyState !== socket.OPEN) return;
    while (st.queue.length > 0) {
      const msg: ServerWsMessage = { type: "baseline", samples: st.queue.splice(0, SAMPLES_PER_MESSAGE_MAX) };
      socket.send(JSON.stringify(msg));
    }
  }

  /** The least used slot of the ping window, nearest its centre first: pages spread evenly as they come and go. */
  function freeSlot(): number {
    let best = -1;
    for (let k = 0; k < windowSlots; k++) {
      const offset = k % 2 === 1 ? (k + 1) / 2 : -k / 2;
      const slot = (((windowCenter + offset) % slotCount) + slotCount) % slotCount;
      if (best < 0 || slots[slot]!.size < slots[best]!.size) best = slot;
    }
    return best;
  }

  async function tick(): Promise<void> {
    pingPool?.tick();
    await measureTcp();
  }

  function turn(): void {
    const slot = slotAt;
    slotAt = (slotAt + 1) % slotCount;
    if (slot === 0) tick().catch((err: unknown) => log(`tailprobe: baseline tick failed: ${(err as Error).message}`));
    for (const st of slots[slot]!) {
      st.wsPinger.send();
      flush(st);
    }
  }

  function startTimers(): void {
    if (slotTimer !== undefined) return;
    slotAt = 0;
    slotTimer = setInterval(turn, intervalMs / slotCount);
  }

  function stopTimers(): void {
    clearInterval(slotTimer);
    slotTimer = undefined;
  }

  return {
    onClient(client) {
      const st: ClientState = {
        client,
        nextId: 0,
        queue: [],
        firstPingReading: pingReadings + 1,
        slot: freeSlot(),
        wsPinger: new WsPinger(client.socket, timeoutMs, nowMs, (r) =>
          push(st, { method: "wsping", t: r.t, ms: r.ms, outcome: r.outcome, reason: r.reason }),
        ),
      };
      clients.set(client, st);
      slots[st.slot]!.add(st);
      let set = byAddress.get(client.address);
      if (set === undefined) byAddress.set(client.address, (set = new Set()));
      set.add(st);
      adoptOrphans(st);
      pingPool?.acquire(client.address);
      startTimers();
    },
    onClientGone(client) {
      const st = clients.get(client);
      if (st === undefined) return;
      st.wsPinger.abandon("ws-closed");
      orphan(st);
      clients.delete(client);
      slots[st.slot]!.delete(st);
      const set = byAddress.get(client.address);
      set?.delete(st);
      if (set?.size === 0) byAddress.delete(client.address);
      pingPool?.release(client.address);
      if (clients.size === 0) stopTimers();
    },
    status() {
      const ping: BaselineStatus = (() => {
        if (pingPool === undefined)
          return { available: false, code: "turned-off", reason: "turned off with --no-ping" };
        const s = pingPool.status;
        if (s.state === "unavailable") return { available: false, code: s.code, reason: s.reason };
        const failing = pingPool.failures();
        // /api/config is public: say how many clients and why, never which addresses.
        if (failing.length > 0) {
          const reasons = [...new Set(failing.map((f) => redactAddresses(f.reason)))].join("; ");
          const reason = `fails towards ${failing.length} client address(es): ${reasons}`.slice(0, 200);
          return { available: true, code: "some-addresses-fail", reason };
        }
        return { available: true };
      })();
      const tcp = tcpAvailability;
      const tcprtt: BaselineStatus =
        tcp === undefined || tcp.available
          ? { available: true }
          : { available: false, code: tcp.code, reason: tcp.reason };
      return { ping, wsping: { available: true }, tcprtt };
    },
    setLocalPort(port) {
      localPort = port;
    },
    pingAddresses: () => pingPool?.activeAddresses() ?? [],
    stop() {
      stopTimers();
      for (const st of clients.values()) st.wsPinger.stop();
      clients.clear();
      for (const set of slots) set.clear();
      byAddress.clear();
      orphans.clear();
      pingPool?.stop();
      spawner?.close();
    },
  };
}
