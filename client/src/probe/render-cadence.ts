// How often the probe page's live view is drawn. Each draw is a frame (style,
// layout, paint, commit) on the main thread the probes' replies wait on:
// measured with scripts/dev/main-thread-breakdown.mts, drawing every second
// cost about 0.6 % of a core, a fifth of the page's main-thread time. Nobody watches a tab
// left running for days, so the view is live (every housekeeping slot) while
// someone is there (after load, input, focus or the page becoming visible)
// and slow when nobody has been for a while. A hidden page draws nothing
// (live-view.ts).

/** After the last sign of a person, the view stays live this long (ms). */
export const ATTENDED_MS = 30_000;
/** Unattended, the view is drawn at most this often (ms). */
export const UNATTENDED_RENDER_MS = 10_000;

export class RenderCadence {
  private attendedAtMs: number;
  private lastRenderMs = Number.NEGATIVE_INFINITY;

  /** nowMs: the page's monotonic clock; the page counts as attended when the cadence starts. */
  constructor(private readonly nowMs: () => number) {
    this.attendedAtMs = nowMs();
  }

  /** Someone is there: input, focus, the page shown again. The next housekeeping slot draws. */
  attend(): void {
    const now = this.nowMs();
    // The first sign after a quiet spell makes the next slot draw, not up to UNATTENDED_RENDER_MS later.
    if (!this.attended(now)) this.lastRenderMs = Number.NEGATIVE_INFINITY;
    this.attendedAtMs = now;
  }

  attended(now = this.nowMs()): boolean {
    return now - this.attendedAtMs < ATTENDED_MS;
  }

  /** Whether the housekeeping slot now should draw; if so, it counts as drawn. */
  take(): boolean {
    const now = this.nowMs();
    if (!this.attended(now) && now - this.lastRenderMs < UNATTENDED_RENDER_MS) return false;
    this.lastRenderMs = now;
    return true;
  }
}

/** Events that say a person is at the page. Passive: they only note the time. */
export const ATTENTION_EVENTS = ["pointermove", "pointerdown", "keydown", "wheel", "touchstart", "focus"] as const;
