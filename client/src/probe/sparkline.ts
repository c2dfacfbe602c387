// A tiny latency sparkline for the probe page's live view: the last minute
// of one method on a log scale, failures as red ticks. Plain canvas, no
// charting library: the probe page must stay light.

/** Samples a sparkline keeps: one minute at one probe per second. */
export const SPARK_POINTS_MAX = 60;

export interface SparkPoint {
  x: number;
  /** null for a failed probe (drawn as a tick, not a point). */
  y: number | null;
}

/**
 * Positions in a width × height box (CSS px): x spreads the last
 * SPARK_POINTS_MAX slots evenly (newest at the right), y is log(ms) between
 * the window's min and max so a steady 1 ms and a 300 ms spike both show.
 */
export function sparkPoints(values: readonly (number | null)[], width: number, height: number, pad = 2): SparkPoint[] {
  const ok = values.filter((v): v is number => v !== null && v > 0);
  const logs = ok.map((v) => Math.log10(v));
  const lo = logs.length > 0 ? Math.min(...logs) : 0;
  const hi = logs.length > 0 ? Math.max(...logs) : 1;
  const span = hi - lo > 1e-9 ? hi - lo : 1;
  const step = (width - 2 * pad) / Math.max(1, SPARK_POINTS_MAX - 1);
  const offset = SPARK_POINTS_MAX - values.length;
  return values.map((v, i) => ({
    x: pad + (offset + i) * step,
    y:
      v === null || v <= 0
        ? null
        : hi - lo > 1e-9
          ? pad + (1 - (Math.log10(v) - lo) / span) * (height - 2 * pad)
          : height / 2,
  }));
}

/** Colours of a sparkline, read from CSS once per render of the whole view, not per canvas. */
export interface SparkColours {
  line: string;
  bad: string;
}

export class Sparkline {
  private readonly values: (number | null)[] = [];
  /** Values changed since the last draw. */
  private dirty = false;
  /**
   * The canvas's CSS size, read once: reading clientWidth after the live view
   * wrote its cells would force a layout per sparkline (the size is fixed in CSS).
   */
  private size: { w: number; h: number } | undefined;

  constructor(readonly canvas: HTMLCanvasElement) {}

  push(ms: number | null): void {
    this.values.push(ms);
    if (this.values.length > SPARK_POINTS_MAX) this.values.shift();
    this.dirty = true;
  }

  /** Draws if anything changed; the live view calls it in the page's housekeeping slot. */
  draw(colours: SparkColours): void {
    if (!this.dirty) return;
    this.dirty = false;
    const c = this.canvas;
    const ratio = window.devicePixelRatio || 1;
    this.size ??= { w: c.clientWidth || 120, h: c.clientHeight || 22 };
    const { w, h } = this.size;
    if (c.width !== Math.round(w * ratio)) c.width = Math.round(w * ratio);
    if (c.height !== Math.round(h * ratio)) c.height = Math.round(h * ratio);
    const ctx = c.getContext("2d");
    if (ctx === null) return;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const pts = sparkPoints(this.values, w, h);
    ctx.strokeStyle = colours.line;
    ctx.lineWidth = 1.25;
    ctx.beginPath();
    let drawing = false;
    for (const p of pts) {
      if (p.y === null) {
        drawing = false;
        continue;
      }
      if (drawing) ctx.lineTo(p.x, p.y);
      else ctx.moveTo(p.x, p.y);
      drawing = true;
    }
    ctx.stroke();
    ctx.fillStyle = colours.bad;
    for (const p of pts) if (p.y === null) ctx.fillRect(p.x - 0.75, h - 6, 1.5, 6);
  }
}
