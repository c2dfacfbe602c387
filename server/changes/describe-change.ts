// A change point as GET /api/changes shows it: its leading move, and the
// same statistic on the parts of the path beside it (shared/changes/describe.ts).
import { describePoint } from "../../shared/changes/describe.js";
import type { SeriesPoint } from "../../shared/changes/clients.js";
import type { Change } from "../../shared/contract/index.js";
import type { RollupCells, RollupKey } from "./rollup-cells.js";

/** A change as the store knows it: the client as its stored clientId (routes show the public id). */
export type FoundChange = Omit<Change, "id" | "client"> & { clientId: string | null };

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
  const client = pt.client === null ? null : pt.client.client;
  const clientId = client === null ? null : c.clientIdOf(client);
  const keyOf = (method: string): RollupKey | null => {
    const series = c.idOf.get(`${method} ${c.target}`);
    return series === undefined ? null : { series, client };
  };
  const { verdict, evidence, parts } = await describePoint(
    cells,
    pt,
    { method: c.method, target: c.target, client: clientId === null ? null : (c.nameOf(clientId) ?? "one client") },
    {
      self: { series: c.series, client },
      baseline: keyOf,
      server:
        c.method === "xhr" || c.method === "jsonp" || c.method === "ws"
          ? { series: c.series, client, server: true }
          : null,
      ws: c.method === "xhr" || c.method === "jsonp" ? keyOf("ws") : null,
    },
  );
  const lead = pt.moves[0]!;
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
    parts,
  };
}
