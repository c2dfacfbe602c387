// The slicing that keeps a long read from stalling the echo endpoints: every
// reader of either engine works in slices of SLICE_MS and yields to the event
// loop in between, so an /echo answered meanwhile measures the network, not a query.
import { performance } from "node:perf_hooks";
import { QueryAbortedError } from "./errors.js";

/** Work done between two yields to the event loop (ms). */
export const SLICE_MS = 4;

export const yieldTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Cooperative time budget: call `maybeYield` in loops; it yields once the
 * slice is spent, and stops the query there if its signal was aborted (a
 * page that changed its view does not keep a reader busy for seconds).
 */
export class Pace {
  private sliceStart = performance.now();
  constructor(
    private readonly sliceMs: number = SLICE_MS,
    private readonly signal?: AbortSignal,
  ) {}

  spent(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  checkAborted(): void {
    if (this.signal?.aborted === true) throw new QueryAbortedError("the query was abandoned");
  }

  async yieldNow(): Promise<void> {
    await yieldTurn();
    this.checkAborted();
    this.sliceStart = performance.now();
  }

  async maybeYield(): Promise<void> {
    if (this.spent()) await this.yieldNow();
  }
}
