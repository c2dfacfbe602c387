// Failures reach the home server within a tick, not with the next report.
// The outbox reports every 5 s (FLUSH_INTERVAL_MS), an IndexedDB read and a
// POST each time, and that is right for the samples; a server's health
// cannot wait that long. So while a server fails, and for a while after
// (its recovery is news too), the page sends that server's settled probes
// to its home server over the home WebSocket it already holds, as a small
// `health` note. The note goes in the housekeeping slot, the page's own
// moment (probe/scheduler.ts), never in a probe's task; while nothing fails
// nothing is sent. The same samples still go home with the report: the
// server counts each (session, seq) once.
import type { Sample } from "../../../shared/contract/samples.js";
import { HEALTH_NOTE_SAMPLES_MAX, type HealthNoteSample } from "../../../shared/contract/ws.js";
import type { Clock } from "../common/clock.js";

/** After a failure of a server's probe, every probe to that server is noted for this long (ms): the server sees it recover at once too. */
export const NOTE_ACTIVE_MS = 15_000;
/** Settled probes waiting for the next housekeeping slot at most; the oldest go first (a backlog is the report's job). */
export const NOTE_QUEUE_MAX = 4 * HEALTH_NOTE_SAMPLES_MAX;

/** The probe as a note carries it; null for what health is not judged from (best-of-two pairs, skipped ticks). */
export function noteOf(s: Sample): HealthNoteSample | null {
  if (s.method === "best2" || s.outcome === "skipped") return null;
  if (s.method !== "xhr" && s.method !== "jsonp" && s.method !== "ws") return null;
  const n: HealthNoteSample = { seq: s.seq, t: s.t, method: s.method, target: s.target, outcome: s.outcome, ms: s.ms };
  if (s.lateMs !== undefined) n.lateMs = s.lateMs;
  if (s.visibleAtSend === false || s.visibleAtReply === false || (s.hiddenMs ?? 0) > 0) n.hidden = true;
  if (s.froze === true) n.froze = true;
  if (s.serverMs !== undefined) n.serverMs = s.serverMs;
  if (s.reason !== undefined) n.reason = s.reason;
  return n;
}

const failed = (n: HealthNoteSample) => n.outcome === "timeout" || n.outcome === "error";

export interface HealthNotesCounters {
  /** Notes sent. */
  notes: number;
  /** Samples sent in notes. */
  samples: number;
  /** Samples not sent because the home socket was not open (the report still carries them). */
  unsent: number;
}

export class HealthNotes {
  private queue: HealthNoteSample[] = [];
  /** Per target: when (monotonic ms) its last probe failed. */
  private readonly lastFailureMs = new Map<string, number>();
  readonly counters: HealthNotesCounters = { notes: 0, samples: 0, unsent: 0 };

  /** @param send sends one message over the home server's WebSocket; false when it is not open. */
  constructor(
    private readonly send: (text: string) => boolean,
    private readonly clock: Clock,
  ) {}

  /** Every settled sample passes here (cheap: no work unless a server is failing). */
  record(s: Sample): void {
    const n = noteOf(s);
    if (n === null) return;
    const now = this.clock.monoMs();
    if (failed(n)) this.lastFailureMs.set(n.target, now);
    const last = this.lastFailureMs.get(n.target);
    if (last === undefined || now - last > NOTE_ACTIVE_MS) return;
    this.queue.push(n);
    if (this.queue.length > NOTE_QUEUE_MAX) this.queue.splice(0, this.queue.length - NOTE_QUEUE_MAX);
  }

  /** The housekeeping slot: what was noted since the last one goes now. */
  flush(): void {
    if (this.queue.length === 0) return;
    const samples = this.queue;
    this.queue = [];
    for (let i = 0; i < samples.length; i += HEALTH_NOTE_SAMPLES_MAX) {
      const part = samples.slice(i, i + HEALTH_NOTE_SAMPLES_MAX);
      if (this.send(JSON.stringify({ type: "health", samples: part }))) {
        this.counters.notes++;
        this.counters.samples += part.length;
      } else {
        this.counters.unsent += samples.length - i;
        return;
      }
    }
  }
}
