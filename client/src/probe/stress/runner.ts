// The page's side of a stress test: starts the load worker on a target,
// remembers when each phase began so every sample can be tagged with its run
// and phase, and reports the run home (POST /api/stress) after each phase and
// when it ends (a beacon if the page closes meanwhile), so a run cut short
// keeps the phases it finished. Its only main-thread work is a message a
// second and, in the housekeeping slot (scheduler.ts), the report's request:
// nothing here shares a probe's moment. The page loads this module, and with
// it the load worker's URL, only when a test begins (control.ts): a tab left
// open for days that never runs one carries neither.
import type { Clock } from "../../common/clock.js";
import type { PhaseReport, RunOutcome, StressReport } from "../../../../shared/contract/stress.js";
import type { StressPhase } from "../../../../shared/stress/phases.js";
import { randomToken } from "../identity.js";
import { phaseAt, type PhaseMark, type PlannedPhase } from "./plan.js";
import type { FromLoadWorker, LoadSecond, ToLoadWorker } from "./protocol.js";

/** A server the load can go to: its name and its two load origins. */
export interface StressTarget {
  name: string;
  downOrigin: string;
  upOrigin: string;
}

/** How a run ended, for the control (a 429 defers the next scheduled test). */
export interface RunEnd {
  outcome: RunOutcome;
  reason?: string | undefined;
  retryAfterS?: number | undefined;
}

export interface RunnerOptions {
  clock: Clock;
  clientId: string;
  sessionId: string;
  /** The home server's report path. */
  endpoint: string;
  /** Creates the load worker (lazily, at the first test); the default is load.worker.ts. */
  worker?: () => Worker;
  onEnd?(end: RunEnd): void;
}

/** The stress test's load worker, built as a chunk of its own that only this module names. */
const loadWorker = () => new Worker(new URL("./load.worker.ts", import.meta.url), { type: "module" });

/** Attempts at delivering one report, a housekeeping slot apart and then doubling. */
const REPORT_ATTEMPTS_MAX = 8;

interface RunState {
  id: string;
  target: string;
  marks: PhaseMark[];
  endMs: number | null;
  phases: PhaseReport[];
  last: LoadSecond | null;
}

export class StressRunner {
  private worker: Worker | null = null;
  /** The run going on, or the last one (its samples may settle after it ended). */
  private run: RunState | null = null;
  private running = false;
  private outbox: { body: string; attempts: number; dueMs: number } | null = null;
  /** One report request at a time: a newer one waits for the older to settle. */
  private sending = false;

  constructor(private readonly o: RunnerOptions) {}

  get active(): boolean {
    return this.running;
  }

  /** Starts a run; false while one is going on. */
  start(target: StressTarget, plan: PlannedPhase[]): boolean {
    if (this.running) return false;
    this.worker ??= this.makeWorker();
    this.run = { id: randomToken(), target: target.name, marks: [], endMs: null, phases: [], last: null };
    this.running = true;
    const msg: ToLoadWorker = { type: "start", plan, downOrigin: target.downOrigin, upOrigin: target.upOrigin };
    this.worker.postMessage(msg);
    return true;
  }

  stop(): void {
    if (this.running) this.worker?.postMessage({ type: "stop" } satisfies ToLoadWorker);
  }

  /** The page is going away mid-run: the phases finished so far go home in a beacon, the run marked aborted. */
  onPageHide(): void {
    const r = this.run;
    if (!this.running || r === null || r.phases.length === 0) return;
    const body = this.reportBody(r, "aborted", "the page was closed");
    navigator.sendBeacon(this.o.endpoint, new Blob([body], { type: "application/json" }));
  }

  /** The run and phase a sample taken at `t` (the page's clock, epoch ms) belongs to, or null. */
  tagAt(t: number): { stressRun: string; load: StressPhase } | null {
    const r = this.run;
    if (r === null) return null;
    const phase = phaseAt(r.marks, r.endMs, t);
    return phase === null ? null : { stressRun: r.id, load: phase };
  }

  /** One line for the page: what the run is doing, or how the last one ended. */
  status(): string {
    const r = this.run;
    if (r === null) return "";
    const phase = r.marks.at(-1);
    if (this.running) {
      if (phase === undefined) return `stress test on ${r.target}: starting…`;
      const s = r.last;
      const rate = (bytes: number) => `${((bytes * 8) / 1e6).toFixed(1)} Mbit/s`;
      const load =
        s === null || (s.streamsDown === 0 && s.streamsUp === 0)
          ? ""
          : `: ${[
              s.streamsDown > 0 ? `↓ ${rate(s.downBytes)} on ${s.streamsDown} streams` : "",
              s.streamsUp > 0 ? `↑ ${rate(s.upBytes)} on ${s.streamsUp} streams` : "",
            ]
              .filter((x) => x !== "")
              .join(", ")}`;
      return `stress test on ${r.target}, ${phase.name}${load}`;
    }
    return "";
  }

  /** In the housekeeping slot: the run's report goes home when due. */
  pump(): void {
    const out = this.outbox;
    if (out === null || this.sending || this.o.clock.monoMs() < out.dueMs) return;
    this.sending = true;
    out.attempts++;
    out.dueMs = this.o.clock.monoMs() + 1000 * 2 ** out.attempts;
    fetch(this.o.endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: out.body,
      cache: "no-store",
    })
      .then(
        (res) => {
          // Delivered, or refused for good (a 4xx other than a rate limit or a session the
          // server has not stored yet, 409): either way it is done.
          if (res.ok || (res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 409))
            this.dropReport(out);
          else this.giveUpAfterLast(out);
        },
        () => this.giveUpAfterLast(out),
      )
      .finally(() => {
        this.sending = false;
      });
  }

  private dropReport(out: NonNullable<StressRunner["outbox"]>): void {
    if (this.outbox === out) this.outbox = null;
  }

  private giveUpAfterLast(out: NonNullable<StressRunner["outbox"]>): void {
    if (out.attempts >= REPORT_ATTEMPTS_MAX) this.dropReport(out);
  }

  private reportBody(r: RunState, outcome: RunOutcome, reason?: string): string {
    const report: StressReport = {
      clientId: this.o.clientId,
      sessionId: this.o.sessionId,
      run: r.id,
      target: r.target,
      outcome,
      phases: r.phases,
    };
    if (reason !== undefined) report.reason = reason.slice(0, 300);
    return JSON.stringify(report);
  }

  /** The run's report replaces any still waiting: the newest says everything the older did. */
  private queueReport(r: RunState, outcome: RunOutcome, reason?: string): void {
    this.outbox = { body: this.reportBody(r, outcome, reason), attempts: 0, dueMs: 0 };
  }

  private makeWorker(): Worker {
    const w = (this.o.worker ?? loadWorker)();
    w.onmessage = (ev: MessageEvent<FromLoadWorker>) => this.onMessage(ev.data);
    return w;
  }

  private onMessage(m: FromLoadWorker): void {
    const r = this.run;
    if (r === null) return;
    switch (m.type) {
      case "phase":
        r.marks.push({ name: m.name, startMs: m.startMs });
        r.last = null;
        return;
      case "second":
        r.last = m;
        return;
      case "phase-done":
        r.phases.push(m.report);
        // Reported now, replaced by the next: a closed page leaves the phases it finished.
        this.queueReport(r, "running");
        return;
      case "done":
        r.endMs = m.endMs;
        this.running = false;
        if (r.phases.length > 0) this.queueReport(r, m.outcome, m.reason);
        this.o.onEnd?.({ outcome: m.outcome, reason: m.reason, retryAfterS: m.retryAfterS });
        return;
    }
  }
}
