// The probe page's "Stress test" control: a button, the server to load, and
// an opt-in schedule (every hour, say) kept in localStorage so bloat can be
// trended over days. One tab of a browser runs a test at a time (a Web Lock).
// Everything it draws, it draws in the housekeeping slot (scheduler.ts).
// The runner (runner.ts) and its load worker are loaded when the first test
// begins, not with the page: most tabs never run one, and the page's start
// bundle is what a tab left open for days holds (tests/e2e/bundle-split.test.ts).
import type { Clock } from "../../common/clock.js";
import { configSchema, type StressPorts } from "../../../../shared/contract/config.js";
import { parseWith } from "../../../../shared/contract/parse.js";
import type { ProbeServer } from "../plan.js";
import type { StressRequest } from "./plan.js";
import type { RunEnd, RunnerOptions, StressRunner, StressTarget } from "./runner.js";

/** Intervals the schedule offers (ms). */
export const SCHEDULE_CHOICES_MS = [3_600_000, 3 * 3_600_000, 6 * 3_600_000, 24 * 3_600_000] as const;
const EVERY_KEY = "tailprobe.stress.everyMs";
const NEXT_KEY = "tailprobe.stress.nextMs";
const LOCK_NAME = "tailprobe.stress";

export interface ControlOptions {
  root: HTMLElement;
  /** Who the runner reports as, and where: the runner is created with these when a test first begins. */
  runner: Pick<RunnerOptions, "clientId" | "sessionId" | "endpoint">;
  /** The page's servers, the home server first. */
  servers: ProbeServer[];
  /** The home server's load paths, from its /api/config; undefined: it offers none. */
  homeStress: StressPorts | undefined;
  request: StressRequest;
  clock: Clock;
}

function readNumber(key: string): number | null {
  try {
    const v = Number(localStorage.getItem(key));
    return Number.isFinite(v) && v > 0 ? v : null;
  } catch {
    return null;
  }
}

function writeNumber(key: string, v: number | null): void {
  try {
    if (v === null) localStorage.removeItem(key);
    else localStorage.setItem(key, String(Math.round(v)));
  } catch {
    // Storage disabled: the schedule lasts as long as the page.
  }
}

const originOf = (baseUrl: string, port: number) => {
  const u = new URL(baseUrl);
  return `${u.protocol}//${u.hostname}:${port}`;
};

export class StressControl {
  private readonly status: HTMLElement;
  private readonly button: HTMLButtonElement;
  private readonly target: HTMLSelectElement;
  private readonly schedule: HTMLInputElement;
  private readonly every: HTMLSelectElement;
  private note = "";
  private shown = "";
  private release: (() => void) | null = null;
  private starting = false;
  /** Created by the first test that begins (its module is loaded then), and kept for the next. */
  private runner: StressRunner | null = null;

  constructor(private readonly o: ControlOptions) {
    const reachable = o.servers.filter((s) => s.blockedReason === null);
    o.root.hidden = o.homeStress === undefined && reachable.length < 2;
    this.button = Object.assign(document.createElement("button"), { type: "button", textContent: "Stress test" });
    this.button.id = "stress-start";
    this.button.title =
      "load the link for about a minute (idle, download, upload, both, cooldown) while every probe and baseline keeps running";
    this.target = Object.assign(document.createElement("select"), { id: "stress-target" });
    for (const s of reachable) this.target.append(new Option(s.name, s.name));
    if (o.request.target !== null && reachable.some((s) => s.name === o.request.target))
      this.target.value = o.request.target;
    this.schedule = Object.assign(document.createElement("input"), { type: "checkbox", id: "stress-schedule" });
    this.every = Object.assign(document.createElement("select"), { id: "stress-every" });
    for (const ms of SCHEDULE_CHOICES_MS) this.every.append(new Option(`${ms / 3_600_000} h`, String(ms)));
    const everyMs = readNumber(EVERY_KEY);
    this.schedule.checked = everyMs !== null;
    if (everyMs !== null) this.every.value = String(everyMs);
    this.status = Object.assign(document.createElement("span"), { id: "stress-status", className: "meta" });
    this.status.setAttribute("role", "status");
    const on = document.createElement("label");
    on.append(" on ", this.target);
    const sched = document.createElement("label");
    sched.append(this.schedule, " again every ", this.every);
    sched.title = "this browser runs a stress test on that schedule while a probe page is open (one tab at a time)";
    o.root.append(this.button, on, sched, " ", this.status);
    this.button.addEventListener("click", () => (this.active ? this.runner?.stop() : this.begin()));
    const saveSchedule = () => {
      writeNumber(EVERY_KEY, this.schedule.checked ? Number(this.every.value) : null);
      // Opting in runs the first test now; the next follow at the interval.
      writeNumber(NEXT_KEY, this.schedule.checked ? this.o.clock.nowMs() : null);
    };
    this.schedule.addEventListener("change", saveSchedule);
    this.every.addEventListener("change", () => {
      if (this.schedule.checked) writeNumber(EVERY_KEY, Number(this.every.value));
    });
    if (o.request.startNow) this.begin();
  }

  /** A test is running. */
  get active(): boolean {
    return this.runner?.active ?? false;
  }

  /** The run and phase a sample taken at `t` (epoch ms) belongs to; null while no test has begun. */
  tagAt(t: number): ReturnType<StressRunner["tagAt"]> {
    return this.runner?.tagAt(t) ?? null;
  }

  /** The page is going away: a run going on sends the phases it finished (runner.ts). */
  onPageHide(): void {
    this.runner?.onPageHide();
  }

  /** The runner reports a run's end here. */
  ended(end: RunEnd): void {
    this.release?.();
    this.release = null;
    if (end.outcome === "refused" && end.retryAfterS !== undefined) {
      const next = readNumber(NEXT_KEY);
      const after = this.o.clock.nowMs() + end.retryAfterS * 1000;
      if (next !== null && next < after) writeNumber(NEXT_KEY, after);
    }
    const minutes = end.retryAfterS === undefined ? "" : `; next possible in ${Math.ceil(end.retryAfterS / 60)} min`;
    this.note =
      end.outcome === "complete"
        ? "last stress test complete: its phases are on the histogram page"
        : end.outcome === "refused"
          ? `stress test refused by the server (429): ${end.reason ?? "over its budget"}${minutes}`
          : `last stress test ${end.outcome}${end.reason === undefined ? "" : `: ${end.reason}`}`;
  }

  /** In the housekeeping slot: a due scheduled test starts, the status line is redrawn, the report goes home. */
  housekeeping(): void {
    const everyMs = readNumber(EVERY_KEY);
    const next = readNumber(NEXT_KEY);
    if (everyMs !== null && next !== null && this.o.clock.nowMs() >= next && !this.active) this.begin();
    this.runner?.pump();
    const text = this.runner?.active ? this.runner.status() : this.note;
    const label = this.active ? "Stop" : "Stress test";
    if (text !== this.shown || this.button.textContent !== label) {
      this.status.textContent = text;
      this.status.classList.toggle("bad", /refused|failed/.test(text));
      this.button.textContent = label;
      this.shown = text;
    }
  }

  private begin(): void {
    if (this.starting || this.active) return;
    this.starting = true;
    const go = async () => {
      try {
        const target = await this.resolve(this.target.value);
        if (typeof target === "string") {
          this.note = target;
          return;
        }
        const everyMs = readNumber(EVERY_KEY);
        if (everyMs !== null) writeNumber(NEXT_KEY, this.o.clock.nowMs() + everyMs);
        // After the schedule moved on: a module that cannot load is not asked for again every second.
        const runner = await this.loadRunner();
        if (typeof runner === "string") {
          this.note = runner;
          return;
        }
        if (runner.start(target, this.o.request.plan)) this.note = "";
      } finally {
        this.starting = false;
      }
    };
    // One tab of this browser at a time: a second would share the link and spoil both.
    if (navigator.locks === undefined) {
      void go();
      return;
    }
    void navigator.locks.request(LOCK_NAME, { ifAvailable: true }, async (lock) => {
      if (lock === null) {
        this.starting = false;
        this.note = "another tab of this browser is running a stress test";
        return;
      }
      await go();
      if (!this.active) return;
      await new Promise<void>((resolve) => (this.release = resolve));
    });
  }

  /** The runner, its module loaded at the first test; or why it cannot be (a page older than the server's build). */
  private async loadRunner(): Promise<StressRunner | string> {
    if (this.runner !== null) return this.runner;
    try {
      const { StressRunner } = await import("./runner.js");
      this.runner = new StressRunner({ ...this.o.runner, clock: this.o.clock, onEnd: (end) => this.ended(end) });
      return this.runner;
    } catch (err) {
      return `cannot load the stress test (reload the page): ${(err as Error).message}`;
    }
  }

  /** The chosen server's load origins, or why it has none. */
  private async resolve(name: string): Promise<StressTarget | string> {
    const i = this.o.servers.findIndex((s) => s.name === name);
    const server = this.o.servers[i];
    if (server === undefined) return `no server ${name}`;
    let ports = i === 0 ? this.o.homeStress : undefined;
    if (i !== 0) {
      // A peer names its own load ports (they may change when it restarts): ask it.
      try {
        const res = await fetch(`${server.baseUrl}/api/config`, { cache: "no-store", credentials: "omit" });
        const cfg = parseWith(configSchema, await res.json());
        ports = cfg.ok ? cfg.value.servers[0]?.stress : undefined;
      } catch (err) {
        return `cannot ask ${name} for its stress test: ${(err as Error).message}`;
      }
    }
    if (ports === undefined) return `${name} offers no stress test (started with --no-stress)`;
    return {
      name,
      downOrigin: originOf(server.baseUrl, ports.downPort),
      upOrigin: originOf(server.baseUrl, ports.upPort),
    };
  }
}
