// Messages between the probe page (runner.ts) and its load worker (load.worker.ts).
import type { PhaseReport } from "../../../../shared/contract/stress.js";
import type { PlannedPhase } from "./plan.js";

export interface LoadStart {
  type: "start";
  plan: PlannedPhase[];
  /** Origins of the target's load paths (downloads, uploads), e.g. http://a.example:8091. */
  downOrigin: string;
  upOrigin: string;
}

export interface LoadStop {
  type: "stop";
}

export type ToLoadWorker = LoadStart | LoadStop;

/** A phase began (the page tags samples from startMs on). */
export interface PhaseBegun {
  type: "phase";
  name: PlannedPhase["name"];
  startMs: number;
}

/** A second of a loaded phase, for the page's status line. */
export interface LoadSecond {
  type: "second";
  downBytes: number;
  upBytes: number;
  streamsDown: number;
  streamsUp: number;
}

/** A phase ended: its report, as POST /api/stress carries it. */
export interface PhaseEnded {
  type: "phase-done";
  report: PhaseReport;
}

/** The run is over: every phase done, or stopped (by the page, a 429, or failing requests). */
export interface RunEnded {
  type: "done";
  outcome: "complete" | "aborted" | "refused" | "failed";
  endMs: number;
  reason?: string;
  /** Retry-After of a 429 (s). */
  retryAfterS?: number;
}

export type FromLoadWorker = PhaseBegun | LoadSecond | PhaseEnded | RunEnded;
