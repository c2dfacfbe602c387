// Shows that a query is running instead of leaving a frozen-looking page:
// after a short grace period a spinner and "loading…" with elapsed seconds,
// charts dimmed via aria-busy; then "updated 12:03:04" or the error.

/** Quick answers never flash the spinner (ms). */
const GRACE_MS = 250;
const TICK_MS = 1000;

export class Progress {
  private startedMs = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private grace: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly status: HTMLElement,
    private readonly busyRoot: HTMLElement,
  ) {}

  /**
   * `dim`: the user asked for a new view, so the charts on screen are stale
   * until it arrives. A periodic refresh does not dim them: on a slow machine
   * that would make the page flicker every few seconds.
   */
  begin(dim: boolean): void {
    this.stopTimers();
    this.startedMs = performance.now();
    if (dim) this.busyRoot.setAttribute("aria-busy", "true");
    this.grace = setTimeout(() => {
      this.show();
      this.timer = setInterval(() => this.show(), TICK_MS);
    }, GRACE_MS);
  }

  end(error: string | null): void {
    this.stopTimers();
    this.busyRoot.setAttribute("aria-busy", "false");
    this.status.classList.remove("loading");
    this.status.classList.toggle("bad", error !== null);
    this.status.textContent =
      error === null ? `updated ${new Date().toLocaleTimeString()}` : `could not refresh: ${error}`;
  }

  private show(): void {
    const s = Math.floor((performance.now() - this.startedMs) / 1000);
    this.status.classList.add("loading");
    this.status.classList.remove("bad");
    this.status.textContent = s >= 2 ? `loading… ${s} s` : "loading…";
  }

  private stopTimers(): void {
    if (this.grace !== null) clearTimeout(this.grace);
    if (this.timer !== null) clearInterval(this.timer);
    this.grace = this.timer = null;
  }
}
