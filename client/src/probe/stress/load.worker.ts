// The stress test's load, in a worker of its own: reading a gigabit of
// download on the page's main thread would delay the probes' replies, which
// that thread handles (docs/architecture.md, "Scheduler"). The worker runs
// the whole schedule on its own clock (a dedicated worker's timers are not
// throttled in a background tab, as the clock worker's are not either) and
// tells the page when each phase begins, so the page can tag its samples.
//
// A direction's load is parallel streams (ramp.ts), each a loop of requests
// to the target's load origin for that direction: downloads of incompressible
// bytes counted as they arrive, uploads of ordinary request bodies (streaming
// uploads are Chromium's alone) counted when the server has taken them all.
// Between two requests a stream sends a tiny GET on the connection it just
// freed: the RPM's self probe (shared/stress/rpm.ts).
/// <reference lib="webworker" />
import type { PhaseReport } from "../../../../shared/contract/stress.js";
import { PHASE_LOAD } from "../../../../shared/stress/phases.js";
import type { PlannedPhase } from "./plan.js";
import type { FromLoadWorker, LoadStart, RunEnded, ToLoadWorker } from "./protocol.js";
import { Ramp, STREAMS_START } from "./ramp.js";

declare const self: DedicatedWorkerGlobalScope;

/** A stream's first request (bytes): about a second at 2 Mbit/s, so a slow link learns its rate quickly. */
const FIRST_REQUEST_BYTES = 256 * 1024;
const DOWN_REQUEST_BYTES_MAX = 64 * 1024 * 1024;
const UP_REQUEST_BYTES_MAX = 32 * 1024 * 1024;
const REQUEST_BYTES_MIN = 64 * 1024;
/** Each request carries about this long of its stream's goodput (ms): long enough that the gap between two is small. */
const REQUEST_MS_TARGET = 1000;
/** A stream whose requests fail this many times in a row ends the run as failed. */
const FAILURES_MAX = 3;
const SECOND_MS = 1000;
/** Bytes of random data an upload body repeats: a Blob of copies costs no further memory. */
const BODY_CHUNK_BYTES = 1024 * 1024;

const post = (m: FromLoadWorker) => self.postMessage(m);

function randomChunk(): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(BODY_CHUNK_BYTES);
  // getRandomValues fills at most 65,536 bytes a call.
  for (let i = 0; i < out.length; i += 65_536) crypto.getRandomValues(out.subarray(i, i + 65_536));
  return out;
}

/** The next request's size: about REQUEST_MS_TARGET of the rate the last one ran at. */
function nextSize(bytes: number, ms: number, max: number): number {
  const rate = bytes / Math.max(1, ms);
  return Math.round(Math.min(max, Math.max(REQUEST_BYTES_MIN, rate * REQUEST_MS_TARGET)));
}

/**
 * A 429 that asks to wait at most this long (s) is the stream caps' (the
 * server's STREAMS_RETRY_MS: streams end within seconds), not the byte
 * budget's (minutes): the stream waits and asks again. Through a slow path
 * the server sees the last phase's streams close only after its queue has
 * drained, and a CI run through tbf had its whole test end as "refused"
 * at the next phase's first request.
 */
const BUSY_RETRY_S_MAX = 5;

/** The load server's stream caps are full for now: wait retryAfterS, then ask again. */
class StreamsBusy extends Error {
  constructor(readonly retryAfterS: number) {
    super(`the load server's streams are busy; retry after ${retryAfterS} s`);
  }
}

/** Resolves after ms, or at once when the signal aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

class RunStopped extends Error {
  constructor(readonly ending: Omit<RunEnded, "type" | "endMs">) {
    super(ending.reason ?? ending.outcome);
  }
}

/** What a phase has moved so far, per second. */
class PhaseAccount {
  down = 0;
  up = 0;
  readonly downSeconds: number[] = [];
  readonly upSeconds: number[] = [];
  readonly selfMs: number[] = [];

  closeSecond(): { down: number; up: number } {
    const s = { down: this.down, up: this.up };
    this.downSeconds.push(this.down);
    this.upSeconds.push(this.up);
    this.down = 0;
    this.up = 0;
    return s;
  }
}

class Run {
  private readonly stopped = new AbortController();
  private ending: Omit<RunEnded, "type" | "endMs"> | null = null;
  private readonly body = randomChunk();

  constructor(private readonly start: LoadStart) {}

  stop(ending: Omit<RunEnded, "type" | "endMs">): void {
    if (this.ending !== null) return;
    this.ending = ending;
    this.stopped.abort(new RunStopped(ending));
  }

  async go(): Promise<void> {
    const found = { down: STREAMS_START, up: STREAMS_START };
    for (const p of this.start.plan) {
      if (this.ending !== null) break;
      await this.phase(p, found);
    }
    post({ type: "done", endMs: Date.now(), ...(this.ending ?? { outcome: "complete" }) });
  }

  private async phase(p: PlannedPhase, found: { down: number; up: number }): Promise<void> {
    const startMs = Date.now();
    post({ type: "phase", name: p.name, startMs });
    const load = PHASE_LOAD[p.name];
    // Loaded alone, a direction ramps; in the bidirectional phase each keeps the count it found.
    const ramps = {
      down: load.down && !load.up ? new Ramp() : null,
      up: load.up && !load.down ? new Ramp() : null,
    };
    const streams = {
      down: load.down ? (ramps.down?.streams ?? found.down) : 0,
      up: load.up ? (ramps.up?.streams ?? found.up) : 0,
    };
    const acct = new PhaseAccount();
    const phaseOver = new AbortController();
    const signal = AbortSignal.any([phaseOver.signal, this.stopped.signal]);
    const running: Promise<void>[] = [];
    const launch = (dir: "down" | "up") => running.push(this.stream(dir, acct, signal));
    for (let i = 0; i < streams.down; i++) launch("down");
    for (let i = 0; i < streams.up; i++) launch("up");
    const tick = setInterval(() => {
      const s = acct.closeSecond();
      for (const dir of ["down", "up"] as const)
        if (ramps[dir]?.observe(s[dir]) === true) {
          streams[dir]++;
          launch(dir);
        }
      post({ type: "second", downBytes: s.down, upBytes: s.up, streamsDown: streams.down, streamsUp: streams.up });
    }, SECOND_MS);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, p.durationMs);
      this.stopped.signal.addEventListener("abort", () => {
        clearTimeout(t);
        resolve();
      });
    });
    clearInterval(tick);
    phaseOver.abort();
    await Promise.all(running);
    acct.closeSecond();
    if (ramps.down !== null) found.down = streams.down;
    if (ramps.up !== null) found.up = streams.up;
    const report: PhaseReport = {
      name: p.name,
      start: startMs,
      end: Date.now(),
      streamsDown: streams.down,
      streamsUp: streams.up,
      downBytes: acct.downSeconds,
      upBytes: acct.upSeconds,
      selfMs: acct.selfMs,
    };
    if (ramps.down !== null) report.saturatedDown = ramps.down.saturated;
    if (ramps.up !== null) report.saturatedUp = ramps.up.saturated;
    post({ type: "phase-done", report });
  }

  /** One stream: requests back to back until the phase ends, a self probe between each two. */
  private async stream(dir: "down" | "up", acct: PhaseAccount, signal: AbortSignal): Promise<void> {
    const origin = dir === "down" ? this.start.downOrigin : this.start.upOrigin;
    let size = FIRST_REQUEST_BYTES;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const t0 = performance.now();
        const moved =
          dir === "down"
            ? await this.download(origin, size, acct, signal)
            : await this.upload(origin, size, acct, signal);
        size = nextSize(moved, performance.now() - t0, dir === "down" ? DOWN_REQUEST_BYTES_MAX : UP_REQUEST_BYTES_MAX);
        failures = 0;
        const p0 = performance.now();
        const res = await fetch(`${origin}/stress/ping`, { cache: "no-store", credentials: "omit", signal });
        await res.arrayBuffer();
        if (res.ok) acct.selfMs.push(performance.now() - p0);
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof StreamsBusy) {
          await pause(err.retryAfterS * SECOND_MS, signal);
          continue;
        }
        if (err instanceof RunStopped) return this.stop(err.ending);
        if (++failures >= FAILURES_MAX)
          return this.stop({ outcome: "failed", reason: `${dir}load requests failed: ${(err as Error).message}` });
      }
    }
  }

  private async refusal(res: Response): Promise<never> {
    const body = (await res.json().catch(() => ({}))) as { error?: unknown };
    const retryAfterS = Number(res.headers.get("Retry-After"));
    if (res.status === 429 && Number.isFinite(retryAfterS) && retryAfterS > 0 && retryAfterS <= BUSY_RETRY_S_MAX)
      throw new StreamsBusy(retryAfterS);
    const reason = typeof body.error === "string" ? body.error : `the load server answered ${res.status}`;
    throw new RunStopped(
      res.status === 429
        ? { outcome: "refused", reason, ...(Number.isFinite(retryAfterS) ? { retryAfterS } : {}) }
        : { outcome: "failed", reason },
    );
  }

  private async download(origin: string, size: number, acct: PhaseAccount, signal: AbortSignal): Promise<number> {
    const res = await fetch(`${origin}/stress/down?bytes=${size}`, { cache: "no-store", credentials: "omit", signal });
    if (res.status === 429) return this.refusal(res);
    if (!res.ok || res.body === null) throw new Error(`GET /stress/down answered ${res.status}`);
    const reader = res.body.getReader();
    let got = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return got;
        got += value.byteLength;
        acct.down += value.byteLength;
      }
    } catch (err) {
      // Cut short by the phase's end: what arrived is counted all the same.
      if (signal.aborted) return got;
      throw err;
    }
  }

  private async upload(origin: string, size: number, acct: PhaseAccount, signal: AbortSignal): Promise<number> {
    const whole = Math.floor(size / this.body.length);
    const parts: BlobPart[] = Array.from({ length: whole }, () => this.body);
    parts.push(this.body.subarray(0, size - whole * this.body.length));
    // No type: no Content-Type header, so the cross-origin POST stays a simple request (no preflight).
    const res = await fetch(`${origin}/stress/up`, {
      method: "POST",
      body: new Blob(parts),
      cache: "no-store",
      credentials: "omit",
      signal,
    });
    if (res.status === 429) return this.refusal(res);
    if (!res.ok) throw new Error(`POST /stress/up answered ${res.status}`);
    await res.arrayBuffer();
    acct.up += size;
    return size;
  }
}

let current: Run | null = null;

self.onmessage = (ev: MessageEvent<ToLoadWorker>) => {
  const m = ev.data;
  if (m.type === "stop") current?.stop({ outcome: "aborted", reason: "stopped on the page" });
  else if (m.type === "start" && current === null) {
    const run = new Run(m);
    current = run;
    void run.go().finally(() => {
      if (current === run) current = null;
    });
  }
};
