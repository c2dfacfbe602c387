// A series for all clients and for each client: the all-clients cells mix
// clients, and the mix moves when one goes quiet (a slower laptop's tab
// hidden for an hour shifts the median while nobody's latency changed). So a
// change found on all clients is checked client by client, given to the one
// client that moved when only one did, and each client's own cells are then
// searched away from the changes found, for a change only one client saw.
import { detect, LEVELS, SAMPLES_MIN, STATISTICS, type ChangePoint, type Move } from "./detect.js";
import {
  CHANGE_PARAMS_DEFAULT,
  detectOptions,
  findChangePoints,
  FINE_MS,
  HOUR_MS,
  REGION_MS,
  type CellSource,
  type ChangeParams,
  type FoundPoint,
} from "./find.js";
import { pooledQuantile } from "./prefix.js";

/** A client's share of an all-clients change counts when it moves by this share of the smallest change, in the same direction. */
const CONFIRM_SHARE = 0.5;
/** Hours compared on each side when confirming a change client by client (ms). */
const CONFIRM_MS = 2 * HOUR_MS;

const floorHour = (t: number) => t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS);
const ceilHour = (t: number) => floorHour(t + HOUR_MS - 1);

/** A change point and whose it is: one client's key, or null for every client's. */
export interface SeriesPoint<K> extends FoundPoint {
  client: K | null;
}

/**
 * The move a client-by-client check reads: the median's if it moved, else
 * p90's, else p99's. A client's p99 over an hour or two rests on a few dozen
 * samples, and one burst of spikes moves it.
 */
export function robustMove(pt: ChangePoint): Move {
  for (const statistic of STATISTICS) {
    const m = pt.moves.find((x) => x.statistic === statistic);
    if (m !== undefined) return m;
  }
  return pt.moves[0]!;
}

/**
 * Each client's own move across an all-clients change, at the change's
 * leading statistic: hour cells either side of the hour it falls in, or
 * 5-minute cells where those hours are not complete (the live edge).
 * The all-clients series mixes clients, so a client whose tab was hidden, or
 * who joined, shifts it while no one's latency changed: such a point is no
 * change.
 */
async function clientMoves<K>(
  source: CellSource<K>,
  pt: FoundPoint,
  lead: Move,
  clients: readonly K[],
): Promise<{ client: K; logRatio: number; weight: number }[]> {
  const level = LEVELS[lead.statistic];
  const beforeTo = floorHour(pt.earliestT);
  const afterFrom = ceilHour(pt.t);
  const beforeFrom = Math.max(beforeTo - CONFIRM_MS, floorHour(pt.beforeFromMs));
  const afterTo = Math.min(afterFrom + CONFIRM_MS, ceilHour(pt.afterToMs));
  const out: { client: K; logRatio: number; weight: number }[] = [];
  for (const client of clients) {
    const need = SAMPLES_MIN[lead.statistic];
    const enough = (x: { n: number } | null) => x !== null && x.n >= need;
    let before = pooledQuantile((await source.hours(client, beforeFrom, beforeTo)).cells, level);
    let after = pooledQuantile((await source.hours(client, afterFrom, afterTo)).cells, level);
    if (!enough(before) || !enough(after)) {
      before = pooledQuantile((await source.fine(client, pt.beforeFromMs, pt.earliestT)).cells, level);
      after = pooledQuantile((await source.fine(client, pt.t, pt.afterToMs)).cells, level);
    }
    if (before === null || after === null || !enough(before) || !enough(after)) continue;
    out.push({ client, logRatio: Math.log(after.us / before.us), weight: Math.min(before.n, after.n) });
  }
  return out;
}

/**
 * The same change on one client's own 5-minute cells: its point moving the
 * same way nearest `pt`, from the start of pt's window before (the client's
 * tab may have been hidden since) to an hour after; null when it has none.
 */
async function ownPoint<K>(
  source: CellSource<K>,
  client: K,
  pt: FoundPoint,
  p: ChangeParams,
): Promise<FoundPoint | null> {
  if (pt.cellMs !== FINE_MS) return null;
  const o = detectOptions(p, FINE_MS);
  const from = pt.beforeFromMs - REGION_MS;
  const fine = await source.fine(client, from - o.spanMs, pt.t + REGION_MS + o.spanMs);
  const direction = Math.sign(robustMove(pt).logRatio);
  let best: FoundPoint | null = null;
  for (const own of detect(fine, o)) {
    if (own.t < from || own.t > pt.t + REGION_MS || Math.sign(robustMove(own).logRatio) !== direction) continue;
    if (best === null || Math.abs(own.t - pt.t) < Math.abs(best.t - pt.t)) best = { ...own, cellMs: FINE_MS };
  }
  return best;
}

/**
 * The changes of one series: on its all-clients cells, each confirmed client
 * by client (and given to the one client that moved when only one did), then
 * on each client's own cells away from those, for a change only one client saw.
 */
export async function findSeriesChanges<K>(
  source: CellSource<K>,
  all: K,
  clients: readonly K[],
  fromMs: number,
  toMs: number,
  p: ChangeParams = CHANGE_PARAMS_DEFAULT,
): Promise<SeriesPoint<K>[]> {
  const out: SeriesPoint<K>[] = [];
  for (const pt of await findChangePoints(source, all, fromMs, toMs, p)) {
    const lead = robustMove(pt);
    const smallest = Math.log1p(p.minRel[lead.statistic]) * CONFIRM_SHARE;
    const direction = Math.sign(lead.logRatio);
    const moves = await clientMoves(source, pt, lead, clients);
    const weight = moves.reduce((s, m) => s + m.weight, 0);
    const mean = weight === 0 ? 0 : moves.reduce((s, m) => s + m.weight * m.logRatio, 0) / weight;
    if (direction * mean < smallest) continue;
    const movers = moves.filter((m) => direction * m.logRatio >= smallest);
    if (movers.length !== 1 || moves.length < 2) {
      out.push({ ...pt, client: null });
      continue;
    }
    // One client's change, placed on that client's own cells: the all-clients
    // series shows it only once that client's share is large enough (after a
    // hidden tab, from its first cell back).
    const client = movers[0]!.client;
    out.push({ ...((await ownPoint(source, client, pt, p)) ?? pt), client });
  }
  if (clients.length < 2) return out;
  // A client's own point within an hour of a change already shown (its gap included) is that change.
  const shown = out.map((pt) => pt.t);
  const nearShown = (from: number, to: number) => shown.some((s) => s >= from - REGION_MS && s <= to + REGION_MS);
  for (const client of clients)
    for (const pt of await findChangePoints(source, client, fromMs, toMs, p, (t) => nearShown(t, t)))
      if (!nearShown(pt.earliestT, pt.t)) out.push({ ...pt, client });
  return out.sort((a, b) => a.t - b.t);
}
