// Rollups gathered from the rows of one write (an ingest batch, a migration
// chunk, the edges of a query), keyed by (level, bucket start, series,
// client, class), then merged into the rollups table in the same transaction.
import { bucketIndex, emptyRollup, mergeInto, recordInBucket, type Rollup } from "../../shared/rollup.js";
import { encodeMerged, encodeRollup, mergeEncoded } from "../../shared/rollup-codec.js";
import { bucketEndMs, bucketStartMs, LEVEL_COUNT } from "./rollup-class.js";

export interface RollupCell {
  level: number;
  startMs: number;
  series: number;
  client: number;
  cls: number;
  failures: number;
  skipped: number;
  lat: Rollup;
  tmo: Rollup;
  winsWs: number;
  winsJsonp: number;
  margin: Rollup;
  /** The server's own handler time of ok probes (µs; Server-Timing, the WebSocket's served note): what the change finder sets a probe's moves against. */
  srv: Rollup;
}

export function emptyCell(level: number, startMs: number, series: number, client: number, cls: number): RollupCell {
  return {
    level,
    startMs,
    series,
    client,
    cls,
    failures: 0,
    skipped: 0,
    lat: emptyRollup(),
    tmo: emptyRollup(),
    winsWs: 0,
    winsJsonp: 0,
    margin: emptyRollup(),
    srv: emptyRollup(),
  };
}

/** Adds cell `b` into `a` (same series; exact, as rollups merge). */
export function mergeCell(a: RollupCell, b: RollupCell): void {
  a.failures += b.failures;
  a.skipped += b.skipped;
  a.winsWs += b.winsWs;
  a.winsJsonp += b.winsJsonp;
  mergeInto(a.lat, b.lat);
  mergeInto(a.tmo, b.tmo);
  mergeInto(a.margin, b.margin);
  mergeInto(a.srv, b.srv);
}

/** What one stored row adds to its rollups. Latencies in integer µs. */
export interface RollupRow {
  t: number;
  series: number;
  client: number;
  cls: number;
  /** 0 ok, 1 timeout, 2 error, 3 skipped (OUTCOMES order). */
  outcome: number;
  us: number | null;
  /** best2: 0 ws, 1 jsonp (BEST2_LEGS order), null otherwise. */
  winner: number | null;
  otherUs: number | null;
  /** tcprtt: the series its min RTT is reported under, and the value. */
  minrttSeries: number | null;
  minrttUs: number | null;
  /** The server's handler time the probe reported (µs), or null. */
  serverUs: number | null;
}

/** A row's values' histogram buckets, found once for the eight or more cells it adds to. */
interface RowBuckets {
  us: number;
  margin: number;
  minrtt: number;
  srv: number;
}

const bucketOf = (us: number | null): number => (us === null || us === 0 ? -1 : bucketIndex(us));
const marginOf = (r: RollupRow): number | null =>
  r.outcome === 0 && r.us !== null && r.otherUs !== null ? Math.max(0, r.otherUs - r.us) : null;
const bucketsOf = (r: RollupRow): RowBuckets => ({
  us: bucketOf(r.us),
  margin: bucketOf(marginOf(r)),
  minrtt: bucketOf(r.minrttUs),
  srv: bucketOf(r.serverUs),
});

export function addToCell(c: RollupCell, r: RollupRow): void {
  addIndexed(c, r, bucketsOf(r));
}

function addIndexed(c: RollupCell, r: RollupRow, b: RowBuckets): void {
  if (r.outcome === 3) c.skipped++;
  else if (r.outcome !== 0 || r.us === null) c.failures++;
  if (r.us === null) return;
  if (r.outcome === 0) {
    recordInBucket(c.lat, r.us, b.us);
    if (r.winner === 0) c.winsWs++;
    else if (r.winner === 1) c.winsJsonp++;
    const margin = marginOf(r);
    if (margin !== null) recordInBucket(c.margin, margin, b.margin);
    if (r.serverUs !== null) recordInBucket(c.srv, r.serverUs, b.srv);
  } else if (r.outcome === 1) recordInBucket(c.tmo, r.us, b.us);
}

/**
 * Every sample also adds to an aggregate row per (level, bucket, series) with
 * client ANY_CLIENT and class ANY_CLASS: a query with no client or flag
 * filter (the page's default) reads one row per bucket and series instead of
 * one per client and class (12× fewer on a month of four clients).
 */
export const ANY_CLIENT = 0;
export const ANY_CLASS = 255;

/** Cells of one bucket start and level, by (client, series, class) packed in one number. */
type BucketCells = Map<number, RollupCell>;
/** Packing fits (client, series, class) in a double exactly below these; beyond, the string key alone. */
const SERIES_PACK = 8192;
const CLASS_PACK = 256;
const CLIENT_PACK = 2 ** 32;

export class RollupBatch {
  /** Every cell by its key (level|start|series|client|class), samples staged since the last read rolled up into them. */
  private readonly all = new Map<string, RollupCell>();
  /**
   * The same cells by (start·LEVEL_COUNT + level) and a packed (client, series, class):
   * rolling up and merging look up cells many times, and number keys spare
   * them building and hashing a string each time.
   */
  private readonly byBucket = new Map<number, BucketCells>();
  /**
   * Samples added since the cells were last read, by 5-minute bucket start and
   * packed (client, series, class). A sample is recorded here once; each staged
   * cell is merged into its ten cells (five levels, its client and class and
   * the aggregate) when the cells are read, so ingest merges a few dozen cells
   * a group instead of recording every sample ten times (15 % of the writer
   * thread's time at full ingest before, with batches in time order; 5.5 % after).
   */
  private readonly staged = new Map<number, BucketCells>();

  /** Every cell, the staged samples rolled up first. */
  get cells(): ReadonlyMap<string, RollupCell> {
    this.rollUp();
    return this.all;
  }

  private static key(c: Pick<RollupCell, "level" | "startMs" | "series" | "client" | "cls">): string {
    return `${c.level}|${c.startMs}|${c.series}|${c.client}|${c.cls}`;
  }

  /** byBucket's outer key: exact, as bucket starts are whole ms far below 2^50. */
  private static slot(level: number, startMs: number): number {
    return startMs * LEVEL_COUNT + level;
  }

  private static packed(series: number, client: number, cls: number): number | null {
    if (series >= SERIES_PACK || cls >= CLASS_PACK || client >= CLIENT_PACK || series < 0 || cls < 0 || client < 0)
      return null;
    return (client * SERIES_PACK + series) * CLASS_PACK + cls;
  }

  private put(key: string, c: RollupCell): void {
    this.all.set(key, c);
    const p = RollupBatch.packed(c.series, c.client, c.cls);
    if (p === null) return;
    const b = RollupBatch.slot(c.level, c.startMs);
    let inner = this.byBucket.get(b);
    if (inner === undefined) this.byBucket.set(b, (inner = new Map()));
    inner.set(p, c);
  }

  private cell(level: number, startMs: number, series: number, client: number, cls: number): RollupCell {
    const p = RollupBatch.packed(series, client, cls);
    if (p !== null) {
      const found = this.byBucket.get(RollupBatch.slot(level, startMs))?.get(p);
      if (found !== undefined) return found;
    }
    const key = RollupBatch.key({ level, startMs, series, client, cls });
    let c = this.all.get(key);
    if (c === undefined) this.put(key, (c = emptyCell(level, startMs, series, client, cls)));
    return c;
  }

  private stagedCell(startMs: number, packed: number, series: number, client: number, cls: number): RollupCell {
    let inner = this.staged.get(startMs);
    if (inner === undefined) this.staged.set(startMs, (inner = new Map()));
    let c = inner.get(packed);
    if (c === undefined) inner.set(packed, (c = emptyCell(0, startMs, series, client, cls)));
    return c;
  }

  /** Merges each staged cell into its cell at every level, its own client and class and the aggregate. */
  private rollUp(): void {
    if (this.staged.size === 0) return;
    for (const inner of this.staged.values())
      for (const s of inner.values())
        for (let level = 0; level < LEVEL_COUNT; level++) {
          const startMs = bucketStartMs(level, s.startMs);
          mergeCell(this.cell(level, startMs, s.series, s.client, s.cls), s);
          mergeCell(this.cell(level, startMs, s.series, ANY_CLIENT, ANY_CLASS), s);
        }
    this.staged.clear();
  }

  /** Adds a stored rollups row into the cell at (level, startMs, series, client, cls). */
  addStored(level: number, startMs: number, series: number, client: number, cls: number, s: StoredCell): void {
    mergeStored(this.cell(level, startMs, series, client, cls), s);
  }

  /** Adds every cell of `other` (another write's rollups) into this one. */
  mergeFrom(other: RollupBatch): void {
    // Staged samples stay staged (a group of batches rolls up once, at its write).
    for (const [startMs, inner] of other.staged)
      for (const [packed, o] of inner) mergeCell(this.stagedCell(startMs, packed, o.series, o.client, o.cls), o);
    for (const [key, o] of other.all) {
      const c = this.all.get(key);
      if (c === undefined) {
        this.put(key, o);
        continue;
      }
      mergeCell(c, o);
    }
  }

  /** Moves the cells whose bucket has ended by watermarkMs into a batch of their own (bulk loading). */
  takeClosed(watermarkMs: number): RollupBatch {
    this.rollUp();
    const closed = new RollupBatch();
    for (const [key, c] of this.all) {
      if (bucketEndMs(c.level, c.startMs) > watermarkMs) continue;
      closed.put(key, c);
      this.all.delete(key);
      const b = RollupBatch.slot(c.level, c.startMs);
      const inner = this.byBucket.get(b);
      const p = RollupBatch.packed(c.series, c.client, c.cls);
      if (inner !== undefined && p !== null) {
        inner.delete(p);
        if (inner.size === 0) this.byBucket.delete(b);
      }
    }
    return closed;
  }

  add(r: RollupRow): void {
    const b = bucketsOf(r);
    const minrtt = r.minrttSeries !== null && r.minrttUs !== null;
    const p = RollupBatch.packed(r.series, r.client, r.cls);
    const q = minrtt ? RollupBatch.packed(r.minrttSeries!, r.client, r.cls) : null;
    if (p === null || (minrtt && q === null)) {
      this.addToEveryLevel(r, b, minrtt);
      return;
    }
    const startMs = bucketStartMs(0, r.t);
    addIndexed(this.stagedCell(startMs, p, r.series, r.client, r.cls), r, b);
    if (minrtt)
      recordInBucket(this.stagedCell(startMs, q!, r.minrttSeries!, r.client, r.cls).lat, r.minrttUs!, b.minrtt);
  }

  /** add() for keys past the packed range (not met in practice): straight into each cell. */
  private addToEveryLevel(r: RollupRow, b: RowBuckets, minrtt: boolean): void {
    for (let level = 0; level < LEVEL_COUNT; level++) {
      const startMs = bucketStartMs(level, r.t);
      addIndexed(this.cell(level, startMs, r.series, r.client, r.cls), r, b);
      addIndexed(this.cell(level, startMs, r.series, ANY_CLIENT, ANY_CLASS), r, b);
      if (minrtt) {
        recordInBucket(this.cell(level, startMs, r.minrttSeries!, r.client, r.cls).lat, r.minrttUs!, b.minrtt);
        recordInBucket(this.cell(level, startMs, r.minrttSeries!, ANY_CLIENT, ANY_CLASS).lat, r.minrttUs!, b.minrtt);
      }
    }
  }
}

/** A rollups row as stored. */
export interface StoredCell {
  failures: number;
  skipped: number;
  lat: Uint8Array | null;
  tmo: Uint8Array | null;
  wins_ws: number;
  wins_jsonp: number;
  margin: Uint8Array | null;
  /** Absent where a reader does not select it (rows of versions before server time was kept read none). */
  srv?: Uint8Array | null;
}

/** Adds a stored row into a cell. */
export function mergeStored(c: RollupCell, s: StoredCell): void {
  c.failures += s.failures;
  c.skipped += s.skipped;
  c.winsWs += s.wins_ws;
  c.winsJsonp += s.wins_jsonp;
  if (s.lat !== null) mergeEncoded(c.lat, s.lat);
  if (s.tmo !== null) mergeEncoded(c.tmo, s.tmo);
  if (s.margin !== null) mergeEncoded(c.margin, s.margin);
  if (s.srv !== null && s.srv !== undefined) mergeEncoded(c.srv, s.srv);
}

export const blobOf = (r: Rollup): Uint8Array | null => (r.count === 0 ? null : encodeRollup(r));

/** A rollups row's values as a writer writes them back: histograms in their stored form. */
export interface MergedRow {
  failures: number;
  skipped: number;
  lat: Uint8Array | null;
  tmo: Uint8Array | null;
  winsWs: number;
  winsJsonp: number;
  margin: Uint8Array | null;
  srv: Uint8Array | null;
}

/**
 * A cell merged with its stored row (undefined: none yet), the histograms
 * merged as bytes (encodeMerged): a stored row's buckets are never put in a
 * Map to be sorted again. The cell is not changed.
 */
export function mergedRow(c: RollupCell, s: StoredCell | undefined): MergedRow {
  return {
    failures: c.failures + (s?.failures ?? 0),
    skipped: c.skipped + (s?.skipped ?? 0),
    lat: encodeMerged(c.lat, s?.lat ?? null),
    tmo: encodeMerged(c.tmo, s?.tmo ?? null),
    winsWs: c.winsWs + (s?.wins_ws ?? 0),
    winsJsonp: c.winsJsonp + (s?.wins_jsonp ?? 0),
    margin: encodeMerged(c.margin, s?.margin ?? null),
    srv: encodeMerged(c.srv, s?.srv ?? null),
  };
}
