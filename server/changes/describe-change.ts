// A change point as GET /api/changes shows it: its leading move, and the
// same statistic on the baselines to the same server beside it (the part of
// the path that moved, shared/changes/attribute.ts).
import { attributeChange, type PartMove } from "../../shared/changes/attribute.js";
import { LEVELS, SAMPLES_MIN, type Statistic } from "../../shared/changes/detect.js";
import { HOUR_MS, type SeriesPoint } from "../../shared/changes/find.js";
import { pooledQuantile } from "../../shared/changes/prefix.js";
import { TCP_MIN_RTT_SERIES, type Change } from "../../shared/contract/index.js";
import type { RollupCells, RollupKey } from "./rollup-cells.js";

/** A change as the store knows it: the client as its stored clientId (routes show the public id). */
export type FoundChange = Omit<Change, "id" | "client"> & { clientId: string | null };

/** The baselines beside a probe, in the order the evidence names them. */
const BASELINES = ["ping", "wsping", "tcprtt", TCP_MIN_RTT_SERIES];

const floorHour = (t: number) => t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS);
const ceilHour = (t: number) => floorHour(t + HOUR_MS - 1);

/**
 * A series' statistic over the whole hours inside a change's windows (the
 * hour it falls in left out), or over its 5-minute cells where those hours
 * hold too few samples (the live edge); ms.
 */
async function beforeAfter(
  cells: RollupCells,
  key: RollupKey,
  pt: SeriesPoint<RollupKey>,
  statistic: Statistic,
): Promise<{ before: number | null; after: number | null }> {
  const level = LEVELS[statistic];
  const need = SAMPLES_MIN[statistic];
  const side = async (from: number, to: number, fineFrom: number, fineTo: number) => {
    const hours = from < to ? pooledQuantile((await cells.hours(key, from, to)).cells, level) : null;
    if (hours !== null && hours.n >= need) return hours.us / 1000;
    const fine = pooledQuantile((await cells.fine(key, fineFrom, fineTo)).cells, level);
    return fine !== null && fine.n >= need ? fine.us / 1000 : null;
  };
  return {
    before: await side(ceilHour(pt.beforeFromMs), floorHour(pt.earliestT), pt.beforeFromMs, pt.earliestT),
    after: await side(ceilHour(pt.t), floorHour(pt.afterToMs), pt.t, pt.afterToMs),
  };
}

export interface ChangeContext {
  method: string;
  target: string;
  series: number;
  /** Series ids by "method target", for the baselines. */
  idOf: ReadonlyMap<string, number>;
  /** The stored clientId of a client code. */
  clientIdOf: (code: number) => string | null;
  nameOf: (clientId: string) => string | null;
}

export async function describeChange(
  cells: RollupCells,
  c: ChangeContext,
  pt: SeriesPoint<RollupKey>,
): Promise<FoundChange> {
  const clientCode = pt.client === null ? null : pt.client.client;
  const clientId = clientCode === null ? null : c.clientIdOf(clientCode);
  const lead = pt.moves[0]!;
  const part = async (method: string): Promise<PartMove | null> => {
    const id = c.idOf.get(`${method} ${c.target}`);
    if (id === undefined) return null;
    return {
      method,
      target: c.target,
      ...(await beforeAfter(cells, { series: id, client: clientCode }, pt, lead.statistic)),
    };
  };
  // The series over the same hour windows as its parts: their moves are set against it.
  const reference = await beforeAfter(cells, { series: c.series, client: clientCode }, pt, lead.statistic);
  const baselines: PartMove[] = [];
  for (const m of BASELINES) {
    const b = m === c.method ? null : await part(m);
    if (b !== null) baselines.push(b);
  }
  const ws = c.method === "xhr" || c.method === "jsonp" ? await part("ws") : null;
  const { verdict, evidence } = attributeChange({
    method: c.method,
    target: c.target,
    client: clientId === null ? null : (c.nameOf(clientId) ?? "one client"),
    statistic: lead.statistic,
    before: lead.beforeUs / 1000,
    after: lead.afterUs / 1000,
    t: pt.t,
    reference,
    baselines,
    server: null,
    ws,
  });
  return {
    method: c.method,
    target: c.target,
    clientId,
    t: pt.t,
    earliestT: pt.earliestT,
    statistic: lead.statistic,
    before: lead.beforeUs / 1000,
    after: lead.afterUs / 1000,
    ratio: lead.afterUs / lead.beforeUs,
    p: lead.p,
    verdict,
    evidence,
    beforeFrom: pt.beforeFromMs,
    afterTo: pt.afterToMs,
    samplesBefore: pt.samplesBefore,
    samplesAfter: pt.samplesAfter,
    resolutionMs: pt.cellMs,
    moves: pt.moves.map((m) => ({
      statistic: m.statistic,
      before: m.beforeUs / 1000,
      after: m.afterUs / 1000,
      ratio: m.afterUs / m.beforeUs,
      p: m.p,
    })),
    parts: [...baselines, ...(ws === null ? [] : [ws])],
  };
}
