// Raw samples in pages for the export and the forensics endpoints: rows in
// (t, session, seq) order, a page at a time, nothing held open between pages,
// so an export of a month can wait on a slow client (backpressure) while
// ingest keeps committing, and memory stays at a page whatever the range.
// Each engine has its own (sqlite/page-reader.ts, postgres/page-reader.ts).
import type { SampleFilter } from "./sample-filter.js";

/** Rows per page: ~200 kB of CSV, a few ms of work between yields to the event loop. */
export const PAGE_ROWS_DEFAULT = 2000;

/** One sample as the pages hand it out: the `samples` view's columns joined with its session. */
export type RawSampleRow = [
  t: number,
  clientId: string,
  sessionId: string,
  seq: number,
  method: string,
  target: string,
  ms: number | null,
  outcome: string,
  scheduledT: number | null,
  lateMs: number | null,
  hiddenMs: number | null,
  flags: number,
  reason: string | null,
  winner: string | null,
  otherMs: number | null,
  otherOutcome: string | null,
  minrtt: number | null,
  serverLagMs: number | null,
  serverMs: number | null,
  sessionRowId: number,
  /** The session's clock step (µs) and its page's engine (sessions.timer_resolution_us, sessions.engine). */
  timerResolutionUs: number | null,
  engine: string | null,
  /** The stress-test phase it was taken in (shared/stress/phases.ts), null outside a test. */
  load: string | null,
  /** That test's run key (the wire's stressRun). */
  stressRun: string | null,
];

export interface PageReader {
  /** Pages of rows in (t, session, seq) order; stop iterating to stop reading. */
  pages(filter: SampleFilter, pageRows?: number): AsyncGenerator<RawSampleRow[]>;
  close(): void;
}
