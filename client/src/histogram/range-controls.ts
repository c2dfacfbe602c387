// The time-range picker (presets or a custom from/to), bound to the view.
import { resolveRange, type Preset, type RangeState } from "./range.js";

function toLocalInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

const PRESET_TEXT: Record<string, string> = {
  "15m": "the last 15 min",
  "1h": "the last hour",
  "24h": "the last 24 h",
  all: "all samples",
};

export function describeRange(r: RangeState): string {
  if (r.preset === "custom" && r.fromMs !== undefined && r.toMs !== undefined) {
    return `${new Date(r.fromMs).toLocaleString()} – ${new Date(r.toMs).toLocaleString()}`;
  }
  return PRESET_TEXT[r.preset] ?? r.preset;
}

/** "5 s", "2 min", "6 h", "1 day": a bucket width in words. */
export function describeBucket(ms: number): string {
  if (ms >= 86_400_000) return `${+(ms / 86_400_000).toPrecision(3)} day`;
  if (ms >= 3_600_000) return `${+(ms / 3_600_000).toPrecision(3)} h`;
  if (ms >= 60_000) return `${+(ms / 60_000).toPrecision(3)} min`;
  return `${+(ms / 1000).toPrecision(3)} s`;
}

export class RangeControls {
  private readonly preset: HTMLSelectElement;
  private readonly from: HTMLInputElement;
  private readonly to: HTMLInputElement;
  private readonly custom: HTMLElement;
  private current: RangeState = { preset: "1h" };

  constructor(root: HTMLElement, onChange: (r: RangeState) => void) {
    this.preset = root.querySelector<HTMLSelectElement>("#range-preset")!;
    this.from = root.querySelector<HTMLInputElement>("#range-from")!;
    this.to = root.querySelector<HTMLInputElement>("#range-to")!;
    this.custom = root.querySelector<HTMLElement>("#custom-range")!;
    // Enter in a date field must not reload the page.
    root.addEventListener("submit", (e) => e.preventDefault());
    this.preset.addEventListener("change", () => {
      const preset = this.preset.value as Preset;
      if (preset === "custom") {
        const { fromMs, toMs } = resolveRange(this.current, Date.now());
        onChange({ preset, fromMs: Math.max(fromMs, Date.now() - 86_400_000), toMs });
      } else {
        onChange({ preset });
      }
    });
    for (const input of [this.from, this.to]) {
      input.addEventListener("change", () => {
        const fromMs = new Date(this.from.value).getTime();
        const toMs = new Date(this.to.value).getTime();
        if (Number.isFinite(fromMs) && Number.isFinite(toMs) && fromMs < toMs)
          onChange({ preset: "custom", fromMs, toMs });
      });
    }
  }

  render(r: RangeState): void {
    this.current = r;
    this.preset.value = r.preset;
    this.custom.hidden = r.preset !== "custom";
    if (r.preset === "custom") {
      this.from.value = toLocalInput(r.fromMs ?? Date.now() - 3_600_000);
      this.to.value = toLocalInput(r.toMs ?? Date.now());
    }
  }
}
