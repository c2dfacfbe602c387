// The change detector on cells whose truth is known: where it places a step,
// what it ignores (small moves, a percentile between two modes, a burst of
// spikes, a client leaving the mix), how it treats gaps and the live edge,
// and that the hour screen misses nothing a full 5-minute scan finds.
import { describe, expect, it } from "vitest";
import { CellBuilder, coarseOfValue, type Cell, type CellSeries } from "../../shared/changes/cells.js";
import { detect } from "../../shared/changes/detect.js";
import { findSeriesChanges } from "../../shared/changes/clients.js";
import { CHANGE_PARAMS_DEFAULT, detectOptions, findChangePoints, FINE_MS, HOUR_MS } from "../../shared/changes/find.js";
import { cellKey, MemoryCells } from "../../testkit/memory-cells.js";
import { plantShifts } from "../../testkit/planted-shifts.js";
import { mulberry32 as prng } from "../../shared/prng.js";

const T0 = Date.UTC(2026, 3, 20);
const fineOpts = detectOptions(CHANGE_PARAMS_DEFAULT, FINE_MS);

/** 5-minute cells at 1 Hz of a log-normal around medianMs(t) (σ 0.25), spikes ×3–15 in 0.5 %, none where hidden(t). */
function cellsOf(
  minutes: number,
  medianMs: (t: number) => number,
  opts: { seed?: number; hidden?: (t: number) => boolean; spike?: (t: number) => number } = {},
): CellSeries {
  const rand = prng(opts.seed ?? 1);
  const b = new CellBuilder();
  const cells: Cell[] = [];
  for (let m = 0; m < minutes; m += 5) {
    const start = T0 + m * 60_000;
    for (let s = 0; s < 300; s++) {
      const t = start + s * 1000;
      if (opts.hidden?.(t) === true) continue;
      const g = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
      let ms = medianMs(t) * Math.exp(0.25 * g);
      if (rand() < (opts.spike?.(t) ?? 0.005)) ms *= 3 + 12 * rand();
      b.addBin(coarseOfValue(Math.round(ms * 1000)), 1);
    }
    const c = b.take(start);
    if (c !== null) cells.push(c);
  }
  return { cellMs: FINE_MS, cells };
}

const at = (minutes: number) => T0 + minutes * 60_000;

describe("detect on 5-minute cells", () => {
  it("places a 40 % step in the median within one cell and measures it", () => {
    const pts = detect(
      cellsOf(8 * 60, (t) => (t >= at(242) ? 28 : 20)),
      fineOpts,
    );
    expect(pts).toHaveLength(1);
    const p = pts[0]!;
    // The step falls inside the cell 240–245: t is that cell's start or end, earliestT a cell before t.
    expect([at(240), at(245)]).toContain(p.t);
    expect(p.t - p.earliestT).toBe(FINE_MS);
    const p50 = p.moves.find((m) => m.statistic === "p50")!;
    expect(p50.beforeUs / 1000).toBeCloseTo(20, 0);
    expect(p50.afterUs / 1000).toBeCloseTo(28, 0);
    expect(p50.p).toBeLessThan(1e-6);
  });

  it("finds 25 % but not 10 % (the smallest move is 20 % on the median)", () => {
    expect(
      detect(
        cellsOf(6 * 60, (t) => (t >= at(180) ? 25 : 20)),
        fineOpts,
      ),
    ).toHaveLength(1);
    expect(
      detect(
        cellsOf(6 * 60, (t) => (t >= at(180) ? 22 : 20)),
        fineOpts,
      ),
    ).toHaveLength(0);
  });

  it("ignores a p90 that jumps between two modes while neither mode moves", () => {
    // 10.5 % of samples at 200 ms, then 9.5 %: p90 flips from the slow mode to the fast one.
    const rand = prng(4);
    const series = cellsOf(6 * 60, (t) => (rand() < (t >= at(180) ? 0.095 : 0.105) ? 200 : 20), { spike: () => 0 });
    expect(detect(series, fineOpts)).toHaveLength(0);
  });

  it("ignores a burst of spikes inside a few minutes", () => {
    const burst = (t: number) => (t >= at(200) && t < at(204) ? 0.6 : 0.005);
    expect(
      detect(
        cellsOf(6 * 60, () => 20, { spike: burst }),
        fineOpts,
      ),
    ).toHaveLength(0);
  });

  it("finds both edges of a 45-minute episode", () => {
    const pts = detect(
      cellsOf(6 * 60, (t) => (t >= at(180) && t < at(225) ? 35 : 20)),
      fineOpts,
    );
    expect(pts.map((p) => p.t)).toEqual([at(180), at(225)]);
  });

  it("at the live edge: found 30 minutes after, not 15", () => {
    const step = (t: number) => (t >= at(240) ? 40 : 20);
    expect(detect(cellsOf(255, step), fineOpts)).toHaveLength(0);
    const found = detect(cellsOf(270, step), fineOpts);
    expect(found.map((p) => p.t)).toEqual([at(240)]);
  });

  it("a change inside a gap spans the gap: [the cell before it, the first after]", () => {
    const hidden = (t: number) => t >= at(200) && t < at(260);
    const pts = detect(
      cellsOf(8 * 60, (t) => (t >= at(230) ? 30 : 20), { hidden }),
      fineOpts,
    );
    expect(pts).toHaveLength(1);
    expect(pts[0]!.earliestT).toBeLessThanOrEqual(at(230));
    expect(pts[0]!.t).toBeGreaterThanOrEqual(at(230));
    expect(pts[0]!.t).toBe(at(260));
  });

  it("stays put as data arrives: the same changes after another day", () => {
    const median = (t: number) => (t >= at(300) && t < at(700) ? 30 : t >= at(1000) ? 14 : 20);
    const day = detect(cellsOf(24 * 60, median, { seed: 9 }), fineOpts);
    const twoDays = detect(cellsOf(48 * 60, median, { seed: 9 }), fineOpts);
    expect(day.map((p) => p.t)).toEqual([at(300), at(700), at(1000)]);
    expect(twoDays.filter((p) => p.t < at(24 * 60 - 180))).toEqual(day.filter((p) => p.t < at(24 * 60 - 180)));
  });
});

describe("the finder over a synthetic fortnight (hours screened, 5-minute cells placed)", () => {
  const days = 14;
  const targets = [{ name: "B", pathMs: 18, serverMs: 0.15 }];
  const plan = {
    startMs: T0,
    days,
    seed: 31,
    clients: 2,
    targets,
    methods: ["xhr", "ping"],
    shifts: plantShifts({ seed: 31, startMs: T0, days, targets, clients: 2, perWeek: 6 }),
  };
  const cells = new MemoryCells(plan);
  const endMs = T0 + days * 86_400_000;

  it("the hour screen finds what a full 5-minute scan finds", async () => {
    for (const key of [cellKey("xhr", "B", null), cellKey("ping", "B", 0), cellKey("xhr", "B", 1)]) {
      const full = detect(await cells.fine(key, T0, endMs), fineOpts).map((p) => p.t);
      const screened = (await findChangePoints(cells, key, T0, endMs)).map((p) => p.t);
      expect(full.length).toBeGreaterThan(2);
      expect(screened).toEqual(full);
    }
  }, 60_000);

  it("old ranges from hours alone: the same changes within an hour, but for edges of short episodes", async () => {
    const clients = [0, 1].map((c) => cellKey("ping", "B", c));
    const all = cellKey("ping", "B", null);
    const fine = (await findSeriesChanges(cells, all, clients, T0, endMs)).map((p) => p.t);
    const coarse = await findSeriesChanges(new MemoryCells(plan, endMs), all, clients, T0, endMs);
    expect(coarse.every((p) => p.cellMs === HOUR_MS)).toBe(true);
    const near = (t: number) => coarse.some((p) => p.earliestT - HOUR_MS <= t && t <= p.t + 2 * HOUR_MS);
    for (const p of coarse) expect(fine.some((t) => p.earliestT - HOUR_MS <= t && t <= p.t + 2 * HOUR_MS)).toBe(true);
    // A change with at least three hours to the next (or the data's ends) either side is found from hours too.
    const spaced = fine.filter(
      (t, i) => t - (fine[i - 1] ?? T0) >= 3 * HOUR_MS && (fine[i + 1] ?? endMs) - t >= 3 * HOUR_MS,
    );
    expect(spaced.length).toBeGreaterThan(1);
    for (const t of spaced) expect(near(t)).toBe(true);
  }, 60_000);
});

describe("all clients and each client", () => {
  const day = 86_400_000;
  const targets = [{ name: "B", pathMs: 18, serverMs: 0.15 }];
  const base = { startMs: T0, days: 2, seed: 5, targets, methods: ["ws"], gapsPerDay: 0 };

  it("a client-only change is that client's; the others' series stay quiet", async () => {
    const shift = {
      kind: "browser" as const,
      target: "B",
      client: 1,
      atMs: T0 + 0.8 * day,
      untilMs: T0 + 3 * day,
      addMs: 15,
    };
    const cells = new MemoryCells({ ...base, clients: 3, shifts: [shift] });
    const found = await findSeriesChanges(
      cells,
      cellKey("ws", "B", null),
      [0, 1, 2].map((c) => cellKey("ws", "B", c)),
      T0,
      T0 + 2 * day,
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.client).toBe(cellKey("ws", "B", 1));
    expect(found[0]!.earliestT).toBeLessThanOrEqual(shift.atMs);
    expect(found[0]!.t + FINE_MS).toBeGreaterThan(shift.atMs);
  }, 60_000);

  it("a slower client's tab hidden for hours moves the mix but is no change", async () => {
    // Client 1 is permanently 60 % slower; its tab is hidden for 4 hours mid-run.
    const slower = {
      kind: "browser" as const,
      target: "B",
      client: 1,
      atMs: T0 - day,
      untilMs: T0 + 3 * day,
      addMs: 12,
    };
    const cells = new MemoryCells({ ...base, clients: 2, shifts: [slower] });
    const hidden = (t: number) => t >= T0 + 1.2 * day && t < T0 + 1.2 * day + 4 * HOUR_MS;
    const filtered = {
      hours: async (k: string, a: number, b: number) => drop(await cells.hours(k, a, b), k, hidden),
      fine: async (k: string, a: number, b: number) => drop(await cells.fine(k, a, b), k, hidden),
      fineFromMs: () => cells.fineFromMs(),
    };
    // The all-clients cells are rebuilt without client 1 while hidden.
    const mixed = await findChangePoints(allOf(filtered, cells, hidden), cellKey("ws", "B", null), T0, T0 + 2 * day);
    expect(mixed.length).toBeGreaterThan(0);
    const found = await findSeriesChanges(
      allOf(filtered, cells, hidden),
      cellKey("ws", "B", null),
      [0, 1].map((c) => cellKey("ws", "B", c)),
      T0,
      T0 + 2 * day,
    );
    expect(found).toEqual([]);
  }, 60_000);
});

/** A client's cells without those in hidden time. */
function drop(s: CellSeries, key: string, hidden: (t: number) => boolean): CellSeries {
  return key.endsWith("|1") ? { ...s, cells: s.cells.filter((c) => !hidden(c.startMs)) } : s;
}

/** A source whose all-clients cells are client 0's alone wherever client 1 is hidden. */
function allOf(
  filtered: { hours: MemoryCells["hours"]; fine: MemoryCells["fine"]; fineFromMs: () => number },
  cells: MemoryCells,
  hidden: (t: number) => boolean,
) {
  const mix = async (get: MemoryCells["hours"], k: string, a: number, b: number) => {
    if (!k.endsWith("|*")) return get(k, a, b);
    const all = await get(k, a, b);
    const zero = await get(k.replace("|*", "|0"), a, b);
    return {
      ...all,
      cells: all.cells.map((c) => (hidden(c.startMs) ? zero.cells.find((z) => z.startMs === c.startMs)! : c)),
    };
  };
  return {
    hours: (k: string, a: number, b: number) => mix((x, y, z) => filtered.hours(x, y, z), k, a, b),
    fine: (k: string, a: number, b: number) => mix((x, y, z) => filtered.fine(x, y, z), k, a, b),
    fineFromMs: () => cells.fineFromMs(),
  };
}
