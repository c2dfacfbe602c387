// The stress test (docs/stress.md): POST /api/stress, the page's report of a
// run (what only the page knows: when each phase began and ended, the bytes
// its load streams moved each second, its round trips on the load-generating
// connections), and GET /api/stress, the runs of a range with their phases
// side by side. The samples themselves carry their run and phase
// (samples.ts `stressRun`, `load`) and are stored with the others.
import { METHODS } from "../methods.js";
import { SERVER_NAME_PATTERN } from "../names.js";
import { GRADES } from "../stress/grade.js";
import { STRESS_PHASES } from "../stress/phases.js";
import { STRESS_VERDICTS } from "../stress/verdict.js";
import { z } from "../zod.js";
import { count, epochMs, latencyMs, nullableMs, token } from "./fields.js";
import { queryInt } from "./query-string.js";

/** Longest phase a run may report (s): the page's longest configurable phase, with room. */
export const PHASE_SECONDS_MAX = 120;
/** Self-probe round trips one phase may report: a stream sends about one a second. */
export const SELF_PROBES_PER_PHASE_MAX = 5000;
/** Load streams per direction a run may report. */
export const STREAMS_REPORTED_MAX = 64;

/**
 * How a run went: still running (the page reports each phase as it ends, so
 * a run whose page was closed keeps the phases it finished), all phases done,
 * stopped on the page or by its closing, refused by the load server's budget
 * (429), or failed (load requests kept failing).
 */
export const RUN_OUTCOMES = ["running", "complete", "aborted", "refused", "failed"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

const bytesPerSecond = z
  .array(z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER)))
  .check(z.maxLength(PHASE_SECONDS_MAX + 1));

export const phaseReportSchema = z.strictObject({
  name: z.enum(STRESS_PHASES),
  /** When the phase began and ended (epoch ms, the page's clock: the clock its samples' t is on). */
  start: epochMs,
  end: epochMs,
  /** Load streams at the phase's end, per direction (0 when the phase loads none). */
  streamsDown: z.int().check(z.minimum(0), z.maximum(STREAMS_REPORTED_MAX)),
  streamsUp: z.int().check(z.minimum(0), z.maximum(STREAMS_REPORTED_MAX)),
  /** Bytes the page received (down) and had acknowledged (up) in each second of the phase, the last second partial. */
  downBytes: bytesPerSecond,
  upBytes: bytesPerSecond,
  /** Round trips on the load-generating connections (self probes, shared/stress/rpm.ts), ms. */
  selfMs: z.array(latencyMs).check(z.maxLength(SELF_PROBES_PER_PHASE_MAX)),
  /** Whether goodput stopped growing before the phase ended (the last four moving averages within 5 %), per loaded direction. */
  saturatedDown: z.optional(z.boolean()),
  saturatedUp: z.optional(z.boolean()),
});
export type PhaseReport = z.infer<typeof phaseReportSchema>;

/** POST /api/stress: one run, reported by its page after each phase and when it ends; each report replaces the last. */
export const stressReportSchema = z
  .strictObject({
    clientId: token,
    sessionId: token,
    /** The run's id: the token its samples carry as `stressRun`. */
    run: token,
    /** The server the load went to (the home server or a peer). */
    target: z.string().check(z.regex(SERVER_NAME_PATTERN)),
    outcome: z.enum(RUN_OUTCOMES),
    /** Why a run did not complete, for a person (e.g. the 429's message). */
    reason: z.optional(z.string().check(z.maxLength(300))),
    /** The phases run, in STRESS_PHASES' order; an aborted run reports those it began. */
    phases: z.array(phaseReportSchema).check(z.minLength(1), z.maxLength(STRESS_PHASES.length)),
  })
  .check(
    z.superRefine((r, ctx) => {
      r.phases.forEach((p, i) => {
        if (p.name !== STRESS_PHASES[i])
          ctx.addIssue({ code: "custom", message: `phase ${i} must be ${STRESS_PHASES[i]}, not ${p.name}` });
        if (p.end < p.start) ctx.addIssue({ code: "custom", message: `phase ${p.name} ends before it starts` });
        const prev = r.phases[i - 1];
        if (prev !== undefined && p.start < prev.end)
          ctx.addIssue({ code: "custom", message: `phase ${p.name} starts before ${prev.name} ends` });
      });
    }),
  );
export type StressReport = z.infer<typeof stressReportSchema>;

/** 200 to POST /api/stress: the run is stored (a later report of the same run replaces it). */
export const stressReportResultSchema = z.object({ stored: z.literal(true) });

/** GET /api/stress?from=MS&to=MS[&client=ID]: runs that began in the range, oldest first. */
export const stressQuerySchema = z
  .strictObject({
    from: z.optional(queryInt),
    to: z.optional(queryInt),
    client: z.optional(token),
  })
  .check(
    z.refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
      message: "from must not be after to",
    }),
  );

/** A latency population in one phase: ok samples, nearest-rank percentiles (shared/stats.ts). */
const latencySummarySchema = z.object({ count, p50: nullableMs, p90: nullableMs, p99: nullableMs });
export type LatencySummary = z.infer<typeof latencySummarySchema>;

/** Series a phase's `latency` may be keyed by: every method, and the kernel's min RTT (tcpminrtt). */
export const STRESS_LATENCY_SERIES = [...METHODS, "tcpminrtt"] as const;

const verdictShape = {
  verdict: z.enum(STRESS_VERDICTS),
  /** One sentence: which witness rose with the WebSocket probe, and what that says. */
  summary: z.string(),
};

export const stressPhaseResultSchema = z.object({
  name: z.enum(STRESS_PHASES),
  start: z.number(),
  end: z.number(),
  /** Goodput (Mbit/s) per direction, the phase's first second (the streams' ramp) left out; null when the phase moved none. */
  downMbps: z.nullable(z.number()),
  upMbps: z.nullable(z.number()),
  streamsDown: count,
  streamsUp: count,
  /** Per series the phase has samples of, for the run's target (best-of-two's where one leg is it). */
  latency: z.record(z.string(), latencySummarySchema),
  /** Round trips on the load-generating connections (the RPM's self probes). */
  self: z.nullable(latencySummarySchema),
  /** Round trips per minute in this phase (shared/stress/rpm.ts); null without both kinds of probe. */
  rpm: z.nullable(z.number()),
  /** WebSocket p50 minus idle's (ms); null for idle and where either is missing. */
  addedMs: nullableMs,
  /** Loaded phases only: where the added latency sits. */
  verdict: z.nullable(z.enum(STRESS_VERDICTS)),
  summary: z.nullable(z.string()),
});
export type StressPhaseResult = z.infer<typeof stressPhaseResultSchema>;

export const stressRunSchema = z.object({
  id: z.string(),
  /** The client's public id (as /api/clients names it). */
  client: z.string(),
  target: z.string(),
  start: z.number(),
  end: z.number(),
  outcome: z.enum(RUN_OUTCOMES),
  reason: z.nullable(z.string()),
  phases: z.array(stressPhaseResultSchema),
  /** WebSocket p50 minus idle's per loaded phase (ms). */
  addedMs: z.object({ download: nullableMs, upload: nullableMs, bidirectional: nullableMs }),
  /** Bufferbloat grade (shared/stress/grade.ts) from download's and upload's added latency. */
  grade: z.nullable(z.enum(GRADES)),
  /** RPM under working conditions: the bidirectional phase's, else the worst loaded phase's. */
  rpm: z.nullable(z.number()),
  ...verdictShape,
});
export type StressRun = z.infer<typeof stressRunSchema>;

export const stressResponseSchema = z.object({
  runs: z.array(stressRunSchema),
  /** Runs of the range left out, the oldest: an answer holds the newest 50. */
  omitted: count,
});
export type StressResponse = z.infer<typeof stressResponseSchema>;
