// The time range the page shows, kept in the URL so a view can be shared.

export const PRESETS = { "15m": 15 * 60_000, "1h": 3_600_000, "24h": 86_400_000, all: null } as const;
export type Preset = keyof typeof PRESETS | "custom";

export interface RangeState {
  preset: Preset;
  /** Custom range bounds (epoch ms), used when preset is "custom". */
  fromMs?: number;
  toMs?: number;
}

export function readRange(search: string): RangeState {
  const q = new URLSearchParams(search);
  const preset = q.get("range");
  if (preset === "custom") {
    const from = Number(q.get("from"));
    const to = Number(q.get("to"));
    if (Number.isInteger(from) && Number.isInteger(to) && from > 0 && to >= from)
      return { preset, fromMs: from, toMs: to };
  }
  if (preset !== null && preset in PRESETS) return { preset: preset as Preset };
  return { preset: "1h" };
}

export function writeRange(state: RangeState, search: string): string {
  const q = new URLSearchParams(search);
  q.set("range", state.preset);
  if (state.preset === "custom" && state.fromMs !== undefined && state.toMs !== undefined) {
    q.set("from", String(state.fromMs));
    q.set("to", String(state.toMs));
  } else {
    q.delete("from");
    q.delete("to");
  }
  return `?${q.toString()}`;
}

/** The concrete [from, to] (epoch ms) a range means right now. */
export function resolveRange(state: RangeState, nowMs: number): { fromMs: number; toMs: number } {
  if (state.preset === "custom") return { fromMs: state.fromMs ?? 0, toMs: state.toMs ?? nowMs };
  const span = PRESETS[state.preset];
  return { fromMs: span === null ? 0 : nowMs - span, toMs: nowMs };
}
