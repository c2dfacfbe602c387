// How the query layer reads raw samples, whatever their layout: SQLite keeps
// them in blocks that SQL cannot look into (sqlite/raw-reads.ts decodes them
// in JavaScript), PostgreSQL a row per sample (postgres/raw-reads.ts, plain SQL).
import type { Pace } from "./pace.js";
import type { SampleFilter } from "./sample-filter.js";

/** What the query reader folds into rollup cells from a raw row, in logical form (logical-row.ts). */
export interface EdgeRow {
  t: number;
  series: number;
  outcome: number;
  us: number | null;
  flags: number;
  lateUs: number | null;
  winner: number | null;
  otherUs: number | null;
  minrttUs: number | null;
  /** The stress-test phase's code (logical-row.ts STRESS_COLUMNS), null outside a test. */
  load: number | null;
}

/** The `samples` view's columns scanSamples can hand back. */
export type ViewColumn = "t" | "method" | "target" | "outcome" | "ms" | "minrtt" | "winner" | "other_ms";

export interface RawReads {
  /** Raw samples with fromMs ≤ t ≤ toMs, estimated, counted no further than past `limit`. */
  estimateRows(fromMs: number, toMs: number, limit: number, pace: Pace): Promise<number>;
  /** The smallest stored t with fromMs ≤ t ≤ toMs, or null. */
  firstT(fromMs: number, toMs: number): Promise<number | null>;
  /** The raw samples with fromMs ≤ t < toMs (of client code `client`, or every client), as the rollup reader folds them. */
  edgeRows(
    fromMs: number,
    toMs: number,
    client: number | null,
    methodOf: (series: number) => string | undefined,
    onRow: (row: EdgeRow) => void,
    pace: Pace,
  ): Promise<void>;
  /** The rows sampleWhere(filter) keeps, as the samples view's `columns`. */
  scanSamples(
    filter: SampleFilter,
    columns: readonly ViewColumn[],
    onRow: (row: unknown[]) => void,
    pace: Pace,
  ): Promise<void>;
}
