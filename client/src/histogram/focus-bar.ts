// The focus window's controls and the caption saying which samples the
// table, histogram and CDF summarise right now.
import type { Populations } from "./queries.js";
import type { TimeWindow, ViewState } from "./url-state.js";

export interface FocusBarCallbacks {
  onChange(patch: Partial<ViewState>): void;
  /** Make the focus window the range (a custom range). */
  onZoom(w: TimeWindow): void;
}

function clock(ms: number, withDate: boolean): string {
  const d = new Date(ms);
  const t = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return withDate ? `${d.toLocaleDateString()} ${t}` : t;
}

export function describeWindow(w: TimeWindow): string {
  const sameDay = new Date(w.fromMs).toDateString() === new Date(w.toMs).toDateString();
  const secs = Math.round((w.toMs - w.fromMs) / 1000);
  const len = secs < 120 ? `${secs} s` : secs < 7200 ? `${Math.round(secs / 60)} min` : `${(secs / 3600).toFixed(1)} h`;
  return `${clock(w.fromMs, !sameDay)}–${clock(w.toMs, !sameDay)} (${len})`;
}

export class FocusBar {
  private current: TimeWindow | null = null;
  private readonly caption: HTMLElement;
  private readonly invert: HTMLButtonElement;
  private readonly zoom: HTMLButtonElement;
  private readonly clear: HTMLButtonElement;

  constructor(root: HTMLElement, cb: FocusBarCallbacks) {
    this.caption = Object.assign(document.createElement("span"), { id: "focus-caption" });
    const button = (id: string, text: string, title: string) =>
      Object.assign(document.createElement("button"), { id, type: "button", textContent: text, title });
    this.invert = button(
      "focus-invert",
      "Everything except this",
      "invert the focus window: summarise the range without it",
    );
    this.zoom = button("focus-zoom", "Zoom to it", "make the focus window the time range");
    this.clear = button("focus-clear", "Clear", "forget the focus window");
    this.invert.addEventListener("click", () =>
      cb.onChange({ invert: this.invert.getAttribute("aria-pressed") !== "true" }),
    );
    this.zoom.addEventListener("click", () => this.current && cb.onZoom(this.current));
    this.clear.addEventListener("click", () => cb.onChange({ focus: null, invert: false }));
    root.append(this.caption, this.invert, this.zoom, this.clear);
  }

  render(v: ViewState, p: Populations, rangeText: string): void {
    const w = p.summaryWindow;
    this.current = w.kind === "range" ? null : w.window;
    const hasFocus = w.kind !== "range";
    this.invert.hidden = this.zoom.hidden = this.clear.hidden = !hasFocus;
    this.invert.setAttribute("aria-pressed", String(v.invert));
    this.caption.dataset.kind = w.kind;
    this.caption.textContent =
      w.kind === "range"
        ? `Table, histogram and CDF: ${rangeText}. Drag across a time chart to focus on a window.`
        : w.kind === "focus"
          ? `Table, histogram and CDF: only ${describeWindow(w.window)}`
          : `Table, histogram and CDF: ${rangeText} except ${describeWindow(w.window)}`;
  }
}
