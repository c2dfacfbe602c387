// Incidents on the histogram page, as pure functions (tested in Node): the
// bands a server's time charts draw, and the view a click on an incident
// asks for (its window as the focus, the range widened to show it).
import type { Incident } from "../../../shared/contract/incidents.js";
import type { RangeState } from "./range.js";
import type { TimeWindow } from "./url-state.js";

export interface IncidentBand {
  id: string;
  kind: Incident["kind"];
  fromMs: number;
  toMs: number;
}

/** Context shown around an incident the range is widened to (a share of its length, at least this, ms). */
export const FOCUS_PAD_MS_MIN = 5 * 60_000;
const FOCUS_PAD_SHARE = 0.5;

/** An incident's window; an open one lasts until now. */
export function incidentWindow(i: Incident, nowMs: number): TimeWindow {
  return { fromMs: i.start, toMs: Math.max(i.start + 1, i.end ?? nowMs) };
}

/**
 * The bands of one chart: the incidents of its server (a best-of-two pair's
 * chart has none of its own), clipped to what the chart shows.
 */
export function bandsFor(
  incidents: readonly Incident[],
  target: string,
  axis: TimeWindow,
  nowMs: number,
): IncidentBand[] {
  const out: IncidentBand[] = [];
  for (const i of incidents) {
    if (i.target !== target) continue;
    const w = incidentWindow(i, nowMs);
    const fromMs = Math.max(w.fromMs, axis.fromMs);
    const toMs = Math.min(w.toMs, axis.toMs);
    if (fromMs < toMs) out.push({ id: i.id, kind: i.kind, fromMs, toMs });
  }
  return out;
}

/**
 * What a click on an incident asks of the view: its window as the focus
 * (the table, histogram and tail then describe the incident), and, when the
 * range does not hold it whole, a custom range around it with some context.
 */
export function focusOn(i: Incident, range: TimeWindow, nowMs: number): { range?: RangeState; focus: TimeWindow } {
  const focus = incidentWindow(i, nowMs);
  if (focus.fromMs >= range.fromMs && focus.toMs <= range.toMs) return { focus };
  const pad = Math.max(FOCUS_PAD_MS_MIN, (focus.toMs - focus.fromMs) * FOCUS_PAD_SHARE);
  return {
    range: {
      preset: "custom",
      fromMs: Math.floor(focus.fromMs - pad),
      toMs: Math.ceil(Math.min(nowMs, focus.toMs + pad)),
    },
    focus,
  };
}
