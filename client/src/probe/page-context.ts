// What the page was doing around a probe: visibility, how long it has been
// hidden, and whether it was frozen. These let the histogram page separate a
// busy or throttled browser from a slow network.

export class PageContext {
  private hiddenSinceMs: number | null;
  /**
   * Incremented on every resume from a freeze (the browser's `resume` event)
   * and on every gap the clock reports (missed ticks: a freeze the page was
   * not told about, e.g. a stopped process, or a sleeping machine). A change
   * between send and reply means the probe spanned one.
   */
  freezeCount = 0;
  /** Due time of the last missed tick seen, so one gap counts once. */
  private lastMissedDueMs = Number.NEGATIVE_INFINITY;

  constructor() {
    this.hiddenSinceMs = document.visibilityState === "hidden" ? Date.now() : null;
    document.addEventListener("visibilitychange", () => {
      this.hiddenSinceMs = document.visibilityState === "hidden" ? Date.now() : null;
    });
    document.addEventListener("resume", () => {
      this.freezeCount++;
    });
  }

  get visible(): boolean {
    return document.visibilityState === "visible";
  }

  /** How long the page has been hidden (ms); 0 while visible. */
  hiddenMs(nowMs = Date.now()): number {
    return this.hiddenSinceMs === null ? 0 : Math.max(0, nowMs - this.hiddenSinceMs);
  }

  /** A due tick was missed; consecutive missed ticks are one gap. */
  noteMissed(dueMs: number, intervalMs: number): void {
    if (dueMs - this.lastMissedDueMs > intervalMs) this.freezeCount++;
    this.lastMissedDueMs = dueMs;
  }
}
