// What the page was doing around a probe: visibility, how long it has been
// hidden, and whether it was frozen. These let the histogram page separate a
// busy or throttled browser from a slow network.

export class PageContext {
  private hiddenSinceMs: number | null;
  /** Incremented on every resume from a freeze; a change between send and reply means the probe spanned one. */
  freezeCount = 0;
  /** Epoch-ms interval of the last freeze, to tell a frozen tick from an asleep machine. */
  lastFreeze: { fromMs: number; toMs: number } | null = null;
  private frozenAtMs: number | null = null;

  constructor() {
    this.hiddenSinceMs = document.visibilityState === "hidden" ? Date.now() : null;
    document.addEventListener("visibilitychange", () => {
      this.hiddenSinceMs = document.visibilityState === "hidden" ? Date.now() : null;
    });
    document.addEventListener("freeze", () => {
      this.frozenAtMs = Date.now();
    });
    document.addEventListener("resume", () => {
      this.freezeCount++;
      this.lastFreeze = { fromMs: this.frozenAtMs ?? Date.now(), toMs: Date.now() };
      this.frozenAtMs = null;
    });
  }

  get visible(): boolean {
    return document.visibilityState === "visible";
  }

  /** How long the page has been hidden (ms); 0 while visible. */
  hiddenMs(nowMs = Date.now()): number {
    return this.hiddenSinceMs === null ? 0 : Math.max(0, nowMs - this.hiddenSinceMs);
  }

  /** Why a due tick could not be sent, judged when the clock catches up. */
  missedReason(dueMs: number): "frozen" | "asleep" {
    const f = this.lastFreeze;
    return f !== null && dueMs >= f.fromMs - 1000 && dueMs <= f.toMs ? "frozen" : "asleep";
  }
}
