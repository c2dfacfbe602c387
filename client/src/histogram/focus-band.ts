// The focus window on time charts: a drag selects it, every time chart
// shades it. uPlot's own selection box is cleared after the drag because the
// shaded band (drawn from the view state) is what persists across refreshes.
import type uPlot from "uplot";
import { windowFromDrag } from "./queries.js";
import type { TimeWindow } from "./url-state.js";

export interface FocusSource {
  focus(): TimeWindow | null;
  inverted(): boolean;
  setFocus(w: TimeWindow): void;
}

export function focusHooks(src: FocusSource): Pick<uPlot.Hooks.Arrays, "setSelect" | "draw"> {
  return {
    setSelect: [
      (u) => {
        const { left, width } = u.select;
        if (width <= 0) return;
        const w = windowFromDrag(u.posToVal(left, "x"), u.posToVal(left + width, "x"), width);
        u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        if (w !== null) src.setFocus(w);
      },
    ],
    draw: [(u) => drawBand(u, src.focus(), src.inverted())],
  };
}

function drawBand(u: uPlot, focus: TimeWindow | null, inverted: boolean): void {
  if (focus === null) return;
  const x0 = u.valToPos(focus.fromMs, "x", true);
  const x1 = u.valToPos(focus.toMs, "x", true);
  const { left, top, width, height } = u.bbox;
  const a = Math.max(left, Math.min(x0, x1));
  const b = Math.min(left + width, Math.max(x0, x1));
  const ctx = u.ctx;
  ctx.save();
  if (inverted) {
    // "Everything except": hatch the left-out window.
    ctx.fillStyle = "rgba(128, 128, 128, 0.28)";
    if (b > a) ctx.fillRect(a, top, b - a, height);
  } else {
    ctx.fillStyle = "rgba(86, 180, 233, 0.16)";
    if (b > a) ctx.fillRect(a, top, b - a, height);
  }
  ctx.strokeStyle = inverted ? "rgba(128,128,128,0.9)" : "rgba(0, 114, 178, 0.9)";
  ctx.lineWidth = 1;
  ctx.setLineDash([4, 3]);
  for (const x of [x0, x1]) {
    if (x < left || x > left + width) continue;
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
  }
  ctx.restore();
}
