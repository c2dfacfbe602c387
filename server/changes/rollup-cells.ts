// The change finder's cells read from the store's rollups (both engines,
// through the ReadPool): hour cells through the HourCache, 5-minute cells
// read where the finder asks, once per request. A key is one series for all
// clients (the aggregate rows) or for one client (its rows of every flag
// class merged): the finder never reads a raw sample.
import { CellBuilder, type Cell, type CellSeries } from "../../shared/changes/cells.js";
import { FINE_MS, HOUR_MS, type CellSource } from "../../shared/changes/find.js";
import { encodedCount } from "../../shared/rollup-codec.js";
import type { Pace } from "../store/pace.js";
import { ANY_CLASS, ANY_CLIENT } from "../store/rollup-batch.js";
import { CLASS_COUNT, TOTAL_LEVEL } from "../store/rollup-class.js";
import type { ReadContext } from "../query/reader.js";
import type { FineCache } from "./fine-cache.js";
import { type HourCache, type HourView, viewCells } from "./hour-cache.js";

/**
 * A series (its id) for every client (client null) or one client (its code in
 * the clients table); its latencies, or with `server` its probes' server time
 * (the rollups' srv histogram).
 */
export interface RollupKey {
  series: number;
  client: number | null;
  server?: boolean;
}

export const keyName = (k: RollupKey): string => `${k.series}/${k.client ?? "*"}${k.server === true ? "/srv" : ""}`;

const HOUR_LEVEL = 1;
const FINE_LEVEL = 0;
const floorHour = (t: number) => t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS);
const ceilHour = (t: number) => floorHour(t + HOUR_MS - 1);
const EVERY_CLASS = Array.from({ length: CLASS_COUNT }, (_, c) => c).join(", ");

/**
 * Rows read in (key, bucket) order folded into cells: rows of the same key
 * and bucket (one client's flag classes) are adjacent, so each cell is built
 * once, with one builder.
 */
class CellStream {
  readonly byKey = new Map<string, Cell[]>();
  private key: string | null = null;
  private startMs = 0;

  constructor(private readonly builder: CellBuilder) {}

  add(key: string, startMs: number, blob: Uint8Array | null): void {
    if (key !== this.key || startMs !== this.startMs) this.flush();
    this.key = key;
    this.startMs = startMs;
    if (blob !== null) this.builder.addEncoded(blob);
  }

  flush(): void {
    if (this.key === null) return;
    const cell = this.builder.take(this.startMs);
    if (cell !== null) {
      let list = this.byKey.get(this.key);
      if (list === undefined) this.byKey.set(this.key, (list = []));
      list.push(cell);
    }
    this.key = null;
  }

  cells(key: string): Cell[] {
    this.flush();
    return this.byKey.get(key) ?? [];
  }
}

/** Which rows a key's client selects. */
const clientWhere = (client: number | null | "clients", codes: readonly number[]) =>
  client === null
    ? `client = ${ANY_CLIENT} AND class = ${ANY_CLASS}`
    : `client IN (${codes.join(", ")}) AND class IN (${EVERY_CLASS})`;

export class RollupCells implements CellSource<RollupKey> {
  private readonly builder = new CellBuilder();
  /** The server time's rows arrive interleaved with the latencies': a builder of their own. */
  private readonly builder2 = new CellBuilder();
  /**
   * The hours this request reads, kept as prepare left them: the shared cache
   * may meanwhile be read again by a request for a shorter span (the alerts'
   * last hours, say) or evicted, and a request must not see its keys shrink
   * halfway through (a client would seem to have no data before the span).
   */
  private readonly views = new Map<string, HourView>();

  constructor(
    private readonly ctx: ReadContext,
    private readonly cache: HourCache,
    private readonly fine5: FineCache,
    private readonly pace: Pace,
  ) {}

  /**
   * Makes the hour cells of every key from `fromMs` on current: for the
   * all-clients rows of `series`, and for each of `clients` (codes) unless
   * empty; and the server time of `serverSeries` alike. One statement per
   * group reads the fresh hours and the totals together; keys whose cached
   * hours changed are read whole.
   */
  async prepare(
    series: readonly number[],
    clients: readonly number[] | null,
    fromMs: number,
    serverSeries: readonly number[] = [],
  ): Promise<void> {
    if (series.length === 0) return;
    const groups: (readonly number[] | null)[] = [null];
    if (clients !== null && clients.length > 0) groups.push(clients);
    const parts = (s: number, client: number | null): RollupKey[] =>
      serverSeries.includes(s)
        ? [
            { series: s, client },
            { series: s, client, server: true },
          ]
        : [{ series: s, client }];
    for (const codes of groups) {
      const keys: RollupKey[] =
        codes === null
          ? series.flatMap((s) => parts(s, null))
          : series.flatMap((s) => codes.flatMap((c) => parts(s, c)));
      const whole = keys.filter((k) => this.cache.readFrom(keyName(k), fromMs) === null);
      const fresh = keys.filter((k) => this.cache.readFrom(keyName(k), fromMs) !== null);
      const stale = await this.readHours(series, codes, fromMs, fresh, whole);
      if (stale.length > 0) await this.readHours(series, codes, fromMs, [], stale);
    }
  }

  /** Reads hours from the earliest point any key needs, folds them into the cache; returns the keys found stale. */
  private async readHours(
    series: readonly number[],
    codes: readonly number[] | null,
    fromMs: number,
    fresh: readonly RollupKey[],
    whole: readonly RollupKey[],
  ): Promise<RollupKey[]> {
    if (fresh.length + whole.length === 0) return [];
    const readFrom = new Map<string, number>();
    for (const k of fresh) readFrom.set(keyName(k), this.cache.readFrom(keyName(k), fromMs)!);
    for (const k of whole) readFrom.set(keyName(k), fromMs);
    const from = Math.min(...readFrom.values());
    const seriesIn = `series IN (${series.join(", ")})`;
    const who = clientWhere(codes === null ? null : "clients", codes ?? []);
    const merger = new CellStream(this.builder);
    const totals = new Map<string, number>();
    // One statement, one snapshot: the totals agree with the hours read beside them.
    const server = new CellStream(this.builder2);
    let newest = -Infinity;
    const fold = (stream: CellStream, key: string, level: number, startMs: number, blob: Uint8Array | null) => {
      const keyFrom = readFrom.get(key);
      if (keyFrom === undefined) return;
      if (level === TOTAL_LEVEL) totals.set(key, (totals.get(key) ?? 0) + (blob === null ? 0 : encodedCount(blob)));
      else if (startMs >= keyFrom) {
        stream.add(key, startMs, blob);
        if (blob !== null && startMs > newest) newest = startMs;
      }
    };
    await this.ctx.pool.scan(
      `SELECT level, series, client, start_ms, lat, srv FROM rollups WHERE level = ${HOUR_LEVEL} AND ${who} AND start_ms >= ? AND ${seriesIn}
       UNION ALL
       SELECT level, series, client, start_ms, lat, srv FROM rollups WHERE level = ${TOTAL_LEVEL} AND ${who} AND start_ms = 0 AND ${seriesIn}
       ORDER BY series, client, start_ms`,
      [from],
      (row) => {
        const [level, s, client, startMs, lat, srv] = row as [
          number,
          number,
          number,
          number,
          Uint8Array | null,
          Uint8Array | null,
        ];
        const owner = codes === null ? null : client;
        fold(merger, keyName({ series: s, client: owner }), level, Number(startMs), lat);
        fold(server, keyName({ series: s, client: owner, server: true }), level, Number(startMs), srv);
      },
      this.pace,
    );
    const stale: RollupKey[] = [];
    for (const [list, isWhole] of [
      [fresh, false],
      [whole, true],
    ] as const)
      for (const k of list) {
        const name = keyName(k);
        const read = { cells: (k.server === true ? server : merger).cells(name), total: totals.get(name) ?? 0 };
        const freshFrom = newest === -Infinity ? from : newest;
        if (!this.cache.update(name, readFrom.get(name)!, read, isWhole, freshFrom)) stale.push(k);
        else this.views.set(name, this.cache.view(name)!);
      }
    return stale;
  }

  async hours(key: RollupKey, fromMs: number, toMs: number): Promise<CellSeries> {
    await this.pace.maybeYield();
    return { cellMs: HOUR_MS, cells: viewCells(this.views.get(keyName(key)), fromMs, toMs) };
  }

  /**
   * 5-minute cells of [fromMs, toMs), read a whole hour at a time: hours the
   * FineCache holds unchanged (their hour cell's count agrees) are not read again.
   */
  async fine(key: RollupKey, fromMs: number, toMs: number): Promise<CellSeries> {
    await this.pace.maybeYield();
    const name = keyName(key);
    const first = Math.max(floorHour(fromMs), floorHour(this.fineFromMs()));
    const last = ceilHour(toMs);
    const view = this.views.get(name);
    const counts = new Map(viewCells(view, first, last).map((c) => [c.startMs, c.count]));
    // Hours the hour cache covers can be checked, and so kept.
    const covered = view?.fromMs ?? Infinity;
    const out: Cell[] = [];
    let missing: number[] = [];
    const readMissing = async () => {
      if (missing.length === 0) return;
      const from = Math.max(missing[0]!, this.fineFromMs());
      const to = missing[missing.length - 1]! + HOUR_MS;
      const stream = new CellStream(this.builder);
      await this.ctx.pool.scan(
        `SELECT start_ms, ${key.server === true ? "srv" : "lat"} FROM rollups WHERE level = ${FINE_LEVEL} AND ${clientWhere(key.client, [key.client ?? 0])} AND series = ? AND start_ms >= ? AND start_ms < ? ORDER BY start_ms`,
        [key.series, from, to],
        (row) => stream.add("k", Number(row[0]), row[1] as Uint8Array | null),
        this.pace,
      );
      const read = stream.cells("k");
      for (const h of missing) {
        const cells = read.filter((c) => c.startMs >= h && c.startMs < h + HOUR_MS);
        if (h >= covered) this.fine5.set(name, h, cells);
        out.push(...cells);
      }
      missing = [];
    };
    for (let h = first; h < last; h += HOUR_MS) {
      const count = counts.get(h) ?? 0;
      const known = h >= covered;
      const cached = known ? this.fine5.get(name, h, count) : null;
      if (cached !== null) {
        await readMissing();
        out.push(...cached);
      } else if (known && count === 0) await readMissing();
      else missing.push(h);
    }
    await readMissing();
    return { cellMs: FINE_MS, cells: out.filter((c) => c.startMs >= fromMs && c.startMs < toMs) };
  }

  fineFromMs(): number {
    return this.ctx.rawKeptFromMs();
  }

  /** Client codes with hour cells of `series` in [fromMs, toMs). */
  clientsWithData(series: number, clients: readonly number[], fromMs: number, toMs: number): number[] {
    return clients.filter((c) => viewCells(this.views.get(keyName({ series, client: c })), fromMs, toMs).length > 0);
  }

  /** A prepared key's generation and fresh hours, as this request read them (null: not read). */
  state(key: RollupKey): { generation: number; freshFromMs: number } | null {
    return this.views.get(keyName(key)) ?? null;
  }
}
