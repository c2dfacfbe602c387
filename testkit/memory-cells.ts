// A month of synthetic latencies (synthetic-month.ts) as the change
// detector's cells, held in memory: what the store's rollups would give, for
// the detector's benchmark and tests without a database. Keys are
// "method|target|client" with client a client index or "*" for all clients;
// "method.server|target|client" holds a probe's server time.
import { CellBuilder, coarseOfValue, coarsen, type Cell, type CellSeries } from "../shared/changes/cells.js";
import { FINE_MS, HOUR_MS, type CellSource } from "../shared/changes/find.js";
import { monthOfLatencies, type MonthPlan } from "./synthetic-month.js";

export const ALL_CLIENTS = "*";
export const cellKey = (method: string, target: string, client: number | null): string =>
  `${method}|${target}|${client === null ? ALL_CLIENTS : client}`;
export const serverKey = (method: string, target: string, client: number | null): string =>
  cellKey(`${method}.server`, target, client);

interface Filling {
  bucket: number;
  builder: CellBuilder;
  cells: Cell[];
}

function slice(cells: readonly Cell[], cellMs: number, fromMs: number, toMs: number): CellSeries {
  // Cells ascend: two binary searches bound the range.
  const first = (t: number) => {
    let a = 0;
    let b = cells.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (cells[m]!.startMs < t) a = m + 1;
      else b = m;
    }
    return a;
  };
  return { cellMs, cells: cells.slice(first(fromMs), first(toMs)) };
}

export class MemoryCells implements CellSource<string> {
  private readonly fineCells = new Map<string, Cell[]>();
  private readonly hourCells = new Map<string, Cell[]>();

  /** Every cell of the plan's samples; 5-minute cells kept from `fineFromMs` on (as retention would). */
  constructor(
    plan: MonthPlan,
    private readonly fineFrom = -Infinity,
  ) {
    const filling = new Map<string, Filling>();
    const add = (key: string, t: number, us: number) => {
      let f = filling.get(key);
      if (f === undefined) filling.set(key, (f = { bucket: -1, builder: new CellBuilder(), cells: [] }));
      const bucket = t - (t % FINE_MS);
      if (bucket !== f.bucket) {
        const cell = f.builder.take(f.bucket);
        if (cell !== null) f.cells.push(cell);
        f.bucket = bucket;
      }
      f.builder.addBin(coarseOfValue(us), 1);
    };
    // Keys built once per (method, target, client): the month has tens of millions of samples.
    const keys = new Map<string, string[]>();
    const keysOf = (method: string, target: string, client: number): string[] => {
      const id = `${method}|${target}|${client}`;
      let k = keys.get(id);
      if (k === undefined)
        keys.set(
          id,
          (k = [
            cellKey(method, target, client),
            cellKey(method, target, null),
            serverKey(method, target, client),
            serverKey(method, target, null),
            cellKey("tcpminrtt", target, client),
            cellKey("tcpminrtt", target, null),
          ]),
        );
      return k;
    };
    monthOfLatencies(plan, (client, method, target, t, us, serverUs, minrttUs) => {
      const k = keysOf(method, target, client);
      add(k[0]!, t, us);
      add(k[1]!, t, us);
      if (serverUs !== null) {
        add(k[2]!, t, serverUs);
        add(k[3]!, t, serverUs);
      }
      if (minrttUs !== null) {
        add(k[4]!, t, minrttUs);
        add(k[5]!, t, minrttUs);
      }
    });
    for (const [key, f] of filling) {
      const last = f.builder.take(f.bucket);
      if (last !== null) f.cells.push(last);
      this.fineCells.set(key, f.cells);
      this.hourCells.set(key, coarsen({ cellMs: FINE_MS, cells: f.cells }, HOUR_MS).cells);
    }
  }

  keys(): string[] {
    return [...this.fineCells.keys()];
  }

  async hours(key: string, fromMs: number, toMs: number): Promise<CellSeries> {
    return slice(this.hourCells.get(key) ?? [], HOUR_MS, fromMs, toMs);
  }

  async fine(key: string, fromMs: number, toMs: number): Promise<CellSeries> {
    return slice(this.fineCells.get(key) ?? [], FINE_MS, Math.max(fromMs, this.fineFrom), toMs);
  }

  fineFromMs(): number {
    return this.fineFrom;
  }
}
