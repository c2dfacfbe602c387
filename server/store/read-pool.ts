// The read port: what the query layer (server/query/) reads through, the same
// on both engines. SQLite's pool reads on read-only connections beside the
// writer (sqlite/read-pool.ts), PostgreSQL's through a cursor (postgres/read-pool.ts);
// both take SQLite's SQL (`?` placeholders, portable functions) and yield
// between slices (pace.ts).
import type { Pace } from "./pace.js";
import type { RawReads } from "./raw-reads.js";

/** Queries running at once; more wait their turn (2 cores: more would only share them). */
export const READERS_MAX = 2;

export type SqlParam = string | number | null;

/** A paced scan of one SELECT, and small SELECTs read in one go: what the raw readers of an engine build on. */
export interface SqlReads {
  /**
   * Streams the rows of one SELECT (as arrays, in column order) to `onRow`,
   * yielding to the event loop whenever the slice is spent (the clock is
   * read every `rowsPerCheck` rows, 256 unless a row is much work); onRow
   * returning false stops the scan there.
   */
  scan(
    sql: string,
    params: readonly SqlParam[],
    onRow: (row: unknown[]) => void | false,
    pace: Pace,
    rowsPerCheck?: number,
  ): Promise<void>;
  /** A small SELECT read in one go (rows as objects). */
  all<T>(sql: string, params: readonly SqlParam[]): Promise<T[]>;
}

export interface ReadPool extends SqlReads {
  /** The store's raw samples, read the way its engine holds them (raw-reads.ts). */
  readonly raw: RawReads;
  close(): void;
}
