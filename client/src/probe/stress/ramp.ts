// How many parallel streams one direction of a loaded phase uses. flent's
// RRUL uses four per direction (one stream on a fast path fills the pipe but
// not the queue); networkQuality adds streams until goodput stops growing.
// Here: four at first; one more after each second whose goodput grew by more
// than GROWTH_MIN over the second before it, up to six (a browser opens at
// most six HTTP/1.1 connections per origin, and each direction has an origin
// of its own). The direction is *saturated* once the last four moving
// averages of goodput (each over four seconds) lie within 5 % of their mean:
// networkQuality's stability rule. Whether it was is reported with the phase.

export const STREAMS_START = 4;
export const STREAMS_MAX = 6;
/** A second's goodput must exceed the one before by this share for another stream to be worth it. */
export const GROWTH_MIN = 0.05;
/** Seconds per moving average, and moving averages compared for stability. */
export const MOVING_AVERAGE_S = 4;
export const STABLE_AVERAGES = 4;
/** The stability rule's tolerance: the averages' spread over their mean. */
export const STABLE_SPREAD_MAX = 0.05;

export class Ramp {
  private readonly seconds: number[] = [];
  private readonly averages: number[] = [];
  private growing = true;
  streams: number;

  constructor(start = STREAMS_START) {
    this.streams = start;
  }

  /** One whole second's bytes; true when a stream should be added now. */
  observe(bytes: number): boolean {
    const before = this.seconds.at(-1);
    this.seconds.push(bytes);
    if (this.seconds.length >= MOVING_AVERAGE_S) {
      const last = this.seconds.slice(-MOVING_AVERAGE_S);
      this.averages.push(last.reduce((a, b) => a + b, 0) / last.length);
    }
    // The first second holds connection set-up and slow start: it says nothing about growth.
    if (before === undefined) return false;
    if (this.growing && bytes <= before * (1 + GROWTH_MIN)) this.growing = false;
    if (!this.growing || this.streams >= STREAMS_MAX) return false;
    this.streams++;
    return true;
  }

  /** The last four moving averages within 5 % of their mean. */
  get saturated(): boolean {
    if (this.averages.length < STABLE_AVERAGES) return false;
    const last = this.averages.slice(-STABLE_AVERAGES);
    const mean = last.reduce((a, b) => a + b, 0) / last.length;
    return mean > 0 && (Math.max(...last) - Math.min(...last)) / mean <= STABLE_SPREAD_MAX;
  }
}
