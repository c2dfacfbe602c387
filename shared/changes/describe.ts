// Which part moved at a change point, read from the same cells the finder
// reads: the change's leading statistic on its series and on each part of
// the path beside it (baselines, server time, the WebSocket probe), over the
// whole hours inside the change's windows (the hours it falls in left out),
// or over 5-minute cells where those hours hold too few samples (the live
// edge). Then attribute.ts's rules.
import { attributeChange, type ChangeVerdict, type PartMove } from "./attribute.js";
import { LEVELS, SAMPLES_MIN, type Statistic } from "./detect.js";
import { HOUR_MS, type CellSource, type FoundPoint } from "./find.js";
import { pooledQuantile } from "./prefix.js";

/** The baselines beside a probe, in the order the evidence names them. */
export const BASELINE_PARTS = ["ping", "wsping", "tcprtt", "tcpminrtt"] as const;

const floorHour = (t: number) => t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS);
const ceilHour = (t: number) => floorHour(t + HOUR_MS - 1);

/** A key's statistic before and after a change (ms; null where too few samples). */
export async function beforeAfter<K>(
  source: CellSource<K>,
  key: K,
  pt: FoundPoint,
  statistic: Statistic,
): Promise<{ before: number | null; after: number | null }> {
  const level = LEVELS[statistic];
  const need = SAMPLES_MIN[statistic];
  const side = async (from: number, to: number, fineFrom: number, fineTo: number) => {
    const hours = from < to ? pooledQuantile((await source.hours(key, from, to)).cells, level) : null;
    if (hours !== null && hours.n >= need) return hours.us / 1000;
    const fine = pooledQuantile((await source.fine(key, fineFrom, fineTo)).cells, level);
    return fine !== null && fine.n >= need ? fine.us / 1000 : null;
  };
  return {
    before: await side(ceilHour(pt.beforeFromMs), floorHour(pt.earliestT), pt.beforeFromMs, pt.earliestT),
    after: await side(ceilHour(pt.t + pt.cellMs), floorHour(pt.afterToMs), pt.t + pt.cellMs, pt.afterToMs),
  };
}

export interface PartKeys<K> {
  /** The changed series' key. */
  self: K;
  /** A baseline's key for the same server and client(s); null when not stored. */
  baseline(method: string): K | null;
  /** The server's handler time for the changed series' method; null when it reports none. */
  server: K | null;
  /** The WebSocket probe to the same server (for XHR and JSONP); null otherwise. */
  ws: K | null;
}

export interface Described {
  verdict: ChangeVerdict;
  evidence: string;
  /** Each part over the attribution windows (server time as method "server"). */
  parts: PartMove[];
}

export async function describePoint<K>(
  source: CellSource<K>,
  pt: FoundPoint,
  what: { method: string; target: string; client: string | null },
  keys: PartKeys<K>,
): Promise<Described> {
  const lead = pt.moves[0]!;
  const move = async (method: string, key: K | null): Promise<PartMove | null> =>
    key === null ? null : { method, target: what.target, ...(await beforeAfter(source, key, pt, lead.statistic)) };
  const baselines: PartMove[] = [];
  for (const m of BASELINE_PARTS) {
    const b = m === what.method ? null : await move(m, keys.baseline(m));
    if (b !== null && (b.before !== null || b.after !== null)) baselines.push(b);
  }
  const server = await move("server", keys.server);
  const ws = await move("ws", keys.ws);
  const { verdict, evidence } = attributeChange({
    ...what,
    statistic: lead.statistic,
    before: lead.beforeUs / 1000,
    after: lead.afterUs / 1000,
    t: pt.t,
    // The series over the same windows as its parts: their moves are set against it.
    reference: await beforeAfter(source, keys.self, pt, lead.statistic),
    baselines,
    server,
    ws,
  });
  const parts = [...baselines, ...(server === null ? [] : [server]), ...(ws === null ? [] : [ws])];
  return { verdict, evidence, parts };
}
