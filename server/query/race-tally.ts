// The figures behind GET /api/races on the exact path, folded from sample
// rows: availability per server and what best-of-two saved against its own
// legs run alone.
import type { AvailabilityRow, Best2Row, RacesResponse, SingleMethod } from "../../shared/contract/index.js";
import { percentileSorted } from "../../shared/stats.js";

export interface RaceRow {
  method: string;
  target: string;
  outcome: string;
  ms: number | null;
  winner: string | null;
  otherMs: number | null;
}

/** Sorts a series ascending; the store passes one that yields to the event loop. */
export type SortValues = (values: number[]) => Promise<Float64Array>;
const plainSort: SortValues = (values) => Promise.resolve(Float64Array.from(values).sort());

/** The methods whose answers say whether a server is up; baselines measure the client's path, not the server. */
export const AVAILABILITY_METHODS = new Set(["xhr", "jsonp", "ws", "best2"]);

async function sortedPair(values: number[], sort: SortValues) {
  const s = await sort(values);
  return { p50: percentileSorted(s, 50), p99: percentileSorted(s, 99) };
}
const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
const minOf = (values: (number | null)[]) => {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : Math.min(...known);
};

/**
 * Folds rows in one at a time, so a query never holds its rows: only the
 * latencies the percentiles need (one number per ok probe) stay.
 */
export class RaceTally {
  private readonly avail = new Map<string, { ok: number; failures: number }>();
  /** ok latencies per "method target", for the single-method figures. */
  private readonly okMs = new Map<string, number[]>();
  private readonly races = new Map<
    string,
    { ms: number[]; failures: number; wins: { ws: number; jsonp: number }; margins: number[] }
  >();

  add(r: RaceRow): void {
    const { avail, okMs, races } = this;
    if (!AVAILABILITY_METHODS.has(r.method) || r.outcome === "skipped") return;
    const ok = r.outcome === "ok" && r.ms !== null;
    let a = avail.get(r.target);
    if (a === undefined) avail.set(r.target, (a = { ok: 0, failures: 0 }));
    if (ok) a.ok++;
    else a.failures++;

    if (r.method !== "best2") {
      // Only the legs' methods are compared with the race; xhr counts for availability alone.
      if (ok && r.method !== "xhr") {
        const key = `${r.method} ${r.target}`;
        let list = okMs.get(key);
        if (list === undefined) okMs.set(key, (list = []));
        list.push(r.ms!);
      }
      return;
    }
    let race = races.get(r.target);
    if (race === undefined)
      races.set(r.target, (race = { ms: [], failures: 0, wins: { ws: 0, jsonp: 0 }, margins: [] }));
    if (!ok) {
      race.failures++;
      return;
    }
    race.ms.push(r.ms!);
    if (r.winner === "ws" || r.winner === "jsonp") race.wins[r.winner]++;
    if (r.otherMs !== null) race.margins.push(Math.max(0, r.otherMs - r.ms!));
  }

  async finish(sort: SortValues = plainSort): Promise<Pick<RacesResponse, "availability" | "best2">> {
    const { avail, okMs, races } = this;

    const availability: AvailabilityRow[] = [...avail]
      .map(([target, a]) => ({
        target,
        ok: a.ok,
        failures: a.failures,
        share: a.ok + a.failures === 0 ? null : a.ok / (a.ok + a.failures),
      }))
      .sort((x, y) => x.target.localeCompare(y.target));

    const best2: Best2Row[] = [];
    for (const [target, race] of races) {
      // "A+B": the WebSocket leg went to A, the JSONP leg to B (names never contain '+').
      const [wsServer = target, jsonpServer = wsServer] = target.split("+");
      const single: SingleMethod[] = [];
      for (const [method, t] of [
        ["ws", wsServer],
        ["jsonp", jsonpServer],
      ] as const) {
        const values = okMs.get(`${method} ${t}`) ?? [];
        single.push({ method, target: t, count: values.length, ...(await sortedPair(values, sort)) });
      }
      const own = await sortedPair(race.ms, sort);
      best2.push({
        target,
        count: race.ms.length,
        failures: race.failures,
        wins: race.wins,
        ...own,
        single,
        saved: {
          p50: minus(minOf(single.map((s) => s.p50)), own.p50),
          p99: minus(minOf(single.map((s) => s.p99)), own.p99),
        },
        margin: await sortedPair(race.margins, sort),
      });
    }
    best2.sort((x, y) => x.target.localeCompare(y.target));

    return { availability, best2 };
  }
}
