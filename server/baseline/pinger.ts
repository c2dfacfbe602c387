// ICMP ping towards connected pages: one long-running iputils `ping` per
// distinct peer address, shared by every tab from it, stopped a little after
// the last one leaves. Needs no privileges beyond what `ping` itself has.
// At most processesMax run at once: beyond it addresses wait their turn and
// share the slots in rotation, and an address whose ping just stopped waits a
// cooldown before it gets another, so connecting and leaving in a loop cannot
// make the server fork. This host's own address (127.0.0.1, ::1: the demo's
// baseline) is exempt from both; the rest of 127.0.0.0/8 is not, so a load
// from many loopback addresses (bench/capacity.ts) meets the bound as real clients do.
// bench/ping-fanout.ts measured the alternative, one fping over every address:
// 10× less CPU and 200× less memory than 1,000 pings, but it fell behind at
// 1,000 addresses a second (without root fping waits at least 1 ms between
// targets) and must restart whenever the set changes.
import { execFile } from "node:child_process";
import net from "node:net";
import { createInterface } from "node:readline";
import type { BaselineStatusCode, SampleReason } from "../../shared/contract/index.js";
import { directSpawn, type SpawnFn, type Spawned } from "../platform/spawner.js";
import { classifyPingFailure, parsePingLine, PING_FIX_INSTALL, type PingFailure } from "./ping-parse.js";
import { PingSequence, type PingResult } from "./ping-sequence.js";

/** The demo's own address, exempt from the bound (see above). */
const isOwnHost = (address: string): boolean => address === "127.0.0.1" || address === "::1";

/** iputils refuses intervals below 200 ms without root. */
export const PING_INTERVAL_MS_MIN = 200;
/** How long a pinger outlives the last tab from its address (ms): a reload must not restart it. */
export const PINGER_LINGER_MS_DEFAULT = 5000;
/** First and largest wait before restarting a ping that exited (ms). */
export const PINGER_RESTART_MS_FIRST = 5000;
export const PINGER_RESTART_MS_MAX = 60_000;
/** The start-up check may take this long (ms) before ping is declared unusable. */
const CHECK_TIMEOUT_MS = 5000;
/** While ping is unusable, a new client address re-checks at most this often (ms): the fix needs no restart. */
export const PING_RECHECK_MS = 60_000;
/** Ping processes running at once (loopback not counted): ~64 × 0.2 MB and 0.04 % of a core each (bench/ping-fanout.ts). */
export const PING_PROCESSES_MAX_DEFAULT = 64;
/** After an address's ping stopped, it waits this long for another (ms): tabs coming and going cannot fork in a loop. */
export const PING_COOLDOWN_MS_DEFAULT = 10_000;
/** While addresses wait, a ping that has run this long (ms) yields its slot to the longest waiting. */
export const PING_SLOT_MS = 60_000;
/** Reason on the skipped ping ticks of an address waiting for a slot or its cooldown. */
export const PING_WAITING_REASON: SampleReason = "ping-capacity";

export interface PingerPoolOptions {
  /** The ping binary: a name looked up in PATH, or a path. */
  command: string;
  intervalMs: number;
  timeoutMs: number;
  lingerMs?: number;
  /** Ping processes at once, loopback not counted. Default PING_PROCESSES_MAX_DEFAULT. */
  processesMax?: number;
  /** Per-address wait after its ping stopped (ms). Default PING_COOLDOWN_MS_DEFAULT. */
  cooldownMs?: number;
  /** How long a ping runs before yielding to a waiting address (ms). Default PING_SLOT_MS. */
  slotMs?: number;
  nowMs: () => number;
  log: (line: string) => void;
  /** One settled request towards an address. */
  onResult(address: string, result: PingResult): void;
  /** Starts each ping (default: Node's spawn; the server's baselines pass their spawner helper's). */
  spawn?: SpawnFn;
}

export type PingAvailability =
  | { state: "checking" }
  | { state: "ready" }
  | { state: "unavailable"; code: BaselineStatusCode; reason: string };

interface Pinger {
  address: string;
  users: number;
  child: Spawned | undefined;
  sequence: PingSequence;
  stopTimer: ReturnType<typeof setTimeout> | undefined;
  restartTimer: ReturnType<typeof setTimeout> | undefined;
  restartMs: number;
  /** Why the last ping for this address exited; ticks meanwhile are errors. */
  failure: string | undefined;
  lastErrorTickMs: number;
  /** When its current process started (ms, nowMs clock). */
  startedAtMs: number;
}

function pingArgs(intervalMs: number, address: string): string[] {
  const seconds = Math.max(intervalMs, PING_INTERVAL_MS_MIN) / 1000;
  // -n: no DNS; -O: report each unanswered request; -D: wall-clock stamp per line.
  return ["-n", "-O", "-D", "-i", String(seconds), address];
}

export class PingerPool {
  private readonly pingers = new Map<string, Pinger>();
  private availability: PingAvailability = { state: "checking" };
  private readonly logged = new Set<string>();
  private stopped = false;
  private lastCheckMs = 0;
  /** Addresses waiting for a slot, longest waiting first (Set order is insertion order). */
  private readonly waiting = new Set<Pinger>();
  /** When each address's last ping stopped (ms), for the cooldown; entries older than it are pruned. */
  private readonly stoppedAtMs = new Map<string, number>();

  constructor(private readonly o: PingerPoolOptions) {
    void this.check();
  }

  get status(): PingAvailability {
    return this.availability;
  }

  /** Addresses with a running ping process, for tests and status. */
  activeAddresses(): string[] {
    return [...this.pingers.values()].filter((p) => p.child !== undefined).map((p) => p.address);
  }

  /** Addresses whose ping failed and is waiting to be restarted, with why. */
  failures(): { address: string; reason: string }[] {
    return [...this.pingers.values()].flatMap((p) =>
      p.failure === undefined ? [] : [{ address: p.address, reason: p.failure }],
    );
  }

  acquire(address: string): void {
    // Only a literal IP reaches ping, so no text from anywhere can become an option or a host name.
    if (this.stopped || net.isIP(address) === 0) return;
    let p = this.pingers.get(address);
    if (p === undefined) {
      p = {
        address,
        users: 0,
        child: undefined,
        sequence: new PingSequence(Math.max(this.o.intervalMs, PING_INTERVAL_MS_MIN), this.o.timeoutMs),
        stopTimer: undefined,
        restartTimer: undefined,
        restartMs: PINGER_RESTART_MS_FIRST,
        failure: undefined,
        lastErrorTickMs: 0,
        startedAtMs: 0,
      };
      this.pingers.set(address, p);
    }
    p.users++;
    clearTimeout(p.stopTimer);
    p.stopTimer = undefined;
    if (this.availability.state === "ready") this.start(p);
    else if (this.availability.state === "unavailable" && this.o.nowMs() - this.lastCheckMs >= PING_RECHECK_MS)
      void this.check();
  }

  release(address: string): void {
    const p = this.pingers.get(address);
    if (p === undefined || p.users === 0) return;
    p.users--;
    if (p.users > 0) return;
    p.stopTimer = setTimeout(() => this.drop(p), this.o.lingerMs ?? PINGER_LINGER_MS_DEFAULT);
    p.stopTimer.unref();
  }

  /** Addresses waiting for a ping slot (read-only view for tests and status). */
  waitingAddresses(): string[] {
    return [...this.waiting].map((p) => p.address);
  }

  /** Once per interval: settle overdue requests, count ticks of a failed ping as errors, share the slots. */
  tick(): void {
    const now = this.o.nowMs();
    this.rotate(now);
    for (const [address, at] of this.stoppedAtMs) if (now - at >= this.cooldownMs) this.stoppedAtMs.delete(address);
    for (const p of this.waiting) {
      if (p.users > 0 && now - p.lastErrorTickMs >= this.o.intervalMs - 50) {
        p.lastErrorTickMs = now;
        this.o.onResult(p.address, { t: now, ms: null, outcome: "skipped", reason: PING_WAITING_REASON });
      }
    }
    for (const p of this.pingers.values()) {
      for (const r of p.sequence.expire(now)) this.o.onResult(p.address, r);
      if (p.failure !== undefined && p.users > 0 && now - p.lastErrorTickMs >= this.o.intervalMs - 50) {
        p.lastErrorTickMs = now;
        this.o.onResult(p.address, { t: now, ms: null, outcome: "error", reason: "ping-unavailable" });
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const p of this.pingers.values()) this.drop(p);
  }

  /** Runs ping once towards loopback with the real flags, so a broken set-up is reported at start-up. */
  private async check(): Promise<void> {
    this.lastCheckMs = this.o.nowMs();
    const verdict = await new Promise<PingFailure | undefined>((resolve) => {
      execFile(
        this.o.command,
        ["-c", "1", "-W", "2", ...pingArgs(this.o.intervalMs, "127.0.0.1")],
        { timeout: CHECK_TIMEOUT_MS },
        (err, stdout, stderr) => {
          if (err === null) return resolve(undefined);
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "ENOENT")
            return resolve({
              scope: "host",
              code: "not-installed",
              reason: `${this.o.command} not found: ${PING_FIX_INSTALL}`,
            });
          if (code === "EACCES")
            return resolve({
              scope: "host",
              code: "not-installed",
              reason: `${this.o.command} is not executable: ${PING_FIX_INSTALL}`,
            });
          const diagnostics = `${stderr}\n${stdout}`.split("\n").flatMap((l) => {
            const r = parsePingLine(l);
            return r.ok && r.value.kind === "diagnostic" ? [r.value.message] : /option|usage/i.test(l) ? [l] : [];
          });
          const f = classifyPingFailure(diagnostics);
          // Loopback unreachable says nothing about real clients; only host-wide problems disable ping.
          resolve(f.scope === "host" ? f : undefined);
        },
      );
    });
    if (this.stopped) return;
    if (verdict !== undefined) {
      this.availability = { state: "unavailable", code: verdict.code ?? "not-installed", reason: verdict.reason };
      this.logOnce(
        `host ${verdict.reason}`,
        `tailprobe: ping baseline unavailable: ${verdict.reason}; every other method keeps working`,
      );
      return;
    }
    if (this.availability.state === "unavailable") this.o.log("tailprobe: ping baseline available again");
    this.availability = { state: "ready" };
    for (const p of this.pingers.values()) if (p.users > 0) this.start(p);
  }

  private get processesMax(): number {
    return this.o.processesMax ?? PING_PROCESSES_MAX_DEFAULT;
  }

  private get cooldownMs(): number {
    return this.o.cooldownMs ?? PING_COOLDOWN_MS_DEFAULT;
  }

  /** Running processes that count against the bound. */
  private running(): Pinger[] {
    return [...this.pingers.values()].filter((p) => p.child !== undefined && !isOwnHost(p.address));
  }

  /** May this address have a process now? Else it waits its turn. */
  private mayStart(p: Pinger): boolean {
    if (isOwnHost(p.address)) return true;
    const stoppedAt = this.stoppedAtMs.get(p.address);
    if (stoppedAt !== undefined && this.o.nowMs() - stoppedAt < this.cooldownMs) return false;
    return this.running().length < this.processesMax;
  }

  /** A slot freed or a cooldown ended: the longest waiting addresses go first. */
  private startWaiting(): void {
    for (const p of this.waiting) {
      if (p.users === 0) {
        this.waiting.delete(p);
        continue;
      }
      if (this.running().length >= this.processesMax) return;
      if (this.mayStart(p)) {
        this.waiting.delete(p);
        this.start(p);
      }
    }
  }

  /** While addresses wait, the ping that has run longest past PING_SLOT_MS yields to them. */
  private rotate(now: number): void {
    this.startWaiting();
    if (this.waiting.size === 0) return;
    const oldest = this.running().sort((a, b) => a.startedAtMs - b.startedAtMs)[0];
    if (oldest === undefined || now - oldest.startedAtMs < (this.o.slotMs ?? PING_SLOT_MS)) return;
    const child = oldest.child;
    oldest.child = undefined;
    child?.kill("SIGTERM");
    // Its outstanding requests will never be answered by this process: start afresh when its turn comes.
    oldest.sequence = new PingSequence(Math.max(this.o.intervalMs, PING_INTERVAL_MS_MIN), this.o.timeoutMs);
    this.waiting.add(oldest);
    this.startWaiting();
  }

  private start(p: Pinger): void {
    if (p.child !== undefined || p.restartTimer !== undefined || this.stopped) return;
    if (!this.mayStart(p)) {
      this.waiting.add(p);
      return;
    }
    p.startedAtMs = this.o.nowMs();
    const child = (this.o.spawn ?? directSpawn)(this.o.command, pingArgs(this.o.intervalMs, p.address));
    p.child = child;
    const diagnostics: string[] = [];
    const onLine = (text: string) => {
      const r = parsePingLine(text);
      if (!r.ok) return;
      if (r.value.kind === "diagnostic") {
        diagnostics.push(r.value.message);
        return;
      }
      if (r.value.kind === "reply" || r.value.kind === "no-answer") {
        // It works: the next failure starts its backoff afresh.
        p.failure = undefined;
        p.restartMs = PINGER_RESTART_MS_FIRST;
      }
      for (const res of p.sequence.onLine(r.value, this.o.nowMs())) this.o.onResult(p.address, res);
    };
    createInterface({ input: child.stdout! }).on("line", onLine);
    createInterface({ input: child.stderr! }).on("line", onLine);
    child.on("error", (err: NodeJS.ErrnoException) => {
      diagnostics.push(err.code === "ENOENT" ? `${this.o.command} not found: ${PING_FIX_INSTALL}` : err.message);
    });
    child.on("close", () => {
      if (p.child !== child) return;
      p.child = undefined;
      this.startWaiting();
      if (p.users === 0 || this.stopped) return;
      const f = classifyPingFailure(diagnostics.length > 0 ? diagnostics : ["ping exited"]);
      if (f.scope === "host") {
        this.availability = { state: "unavailable", code: f.code ?? "not-installed", reason: f.reason };
        this.logOnce(
          `host ${f.reason}`,
          `tailprobe: ping baseline unavailable: ${f.reason}; every other method keeps working`,
        );
        return;
      }
      p.failure = f.reason;
      this.logOnce(
        `${p.address} ${f.reason}`,
        `tailprobe: cannot ping ${p.address}: ${f.reason}; retrying every ${PINGER_RESTART_MS_MAX / 1000} s at most`,
      );
      p.restartTimer = setTimeout(() => {
        p.restartTimer = undefined;
        if (p.users > 0) this.start(p);
      }, p.restartMs);
      p.restartTimer.unref();
      p.restartMs = Math.min(PINGER_RESTART_MS_MAX, p.restartMs * 2);
    });
  }

  private drop(p: Pinger): void {
    clearTimeout(p.stopTimer);
    clearTimeout(p.restartTimer);
    p.restartTimer = undefined;
    const child = p.child;
    p.child = undefined;
    child?.kill("SIGTERM");
    this.waiting.delete(p);
    if (child !== undefined && !isOwnHost(p.address)) this.stoppedAtMs.set(p.address, this.o.nowMs());
    if (this.pingers.get(p.address) === p && p.users === 0) this.pingers.delete(p.address);
    if (this.stopped) this.pingers.delete(p.address);
    else this.startWaiting();
  }

  private logOnce(key: string, line: string): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.o.log(line);
  }
}
