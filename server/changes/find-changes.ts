// GET /api/changes' query: every series of the filter searched for level
// shifts on its rollups (shared/changes/find.ts), all clients' and each
// client's own, each change described with the part of the path that moved
// (describe-change.ts).
//
// Stable and cheap as data arrives: what a change depends on lies within its
// windows, so the changes found before a series' settled time (its fresh,
// still-filling hours less the padding any window reaches across) are kept
// and only the time after is searched again, until the hour cache says a
// cell they read has changed (a new generation of one of the target's keys).
import { findSeriesChanges, type SeriesPoint } from "../../shared/changes/clients.js";
import { CHANGE_PARAMS_DEFAULT, findChangePoints, paddingMs, type ChangeParams } from "../../shared/changes/find.js";
import { TCP_MIN_RTT_SERIES } from "../../shared/contract/index.js";
import { BASELINE_METHODS, PROBE_METHODS } from "../../shared/methods.js";
import type { Pace } from "../store/pace.js";
import type { ReadContext, SeriesInfo } from "../query/reader.js";
import { describeChange, type FoundChange } from "./describe-change.js";
import { FineCache } from "./fine-cache.js";
import { HourCache } from "./hour-cache.js";
import { RollupCells, type RollupKey } from "./rollup-cells.js";

export type { FoundChange } from "./describe-change.js";

export interface ChangeFilter {
  fromMs: number;
  toMs: number;
  methods?: readonly string[] | undefined;
  targets?: readonly string[] | undefined;
  /** One client's changes only (its stored clientId). */
  clientId?: string | undefined;
  /** A client's name for the evidence sentence (its public id); null: none. */
  nameOf?: (clientId: string) => string | null;
}

/** Probes that report the server's handler time (Server-Timing, the WebSocket's served note). */
const REPORTS_SERVER_TIME = new Set(["xhr", "jsonp", "ws"]);
/** Series a change is looked for in: every probe and baseline, and the kernel's min RTT. */
const SEARCHED = new Set<string>([...PROBE_METHODS, ...BASELINE_METHODS, TCP_MIN_RTT_SERIES]);

/** One series' changes of [fromMs, toMs), valid while `stamp` (its target's keys' generations) holds. */
interface Memo {
  stamp: string;
  fromMs: number;
  toMs: number;
  changes: FoundChange[];
}

/** Memos kept (series × client filter); beyond it the oldest go. */
const MEMOS_MAX = 4096;

/** The finder of one store: its hour cache and memos live as long as the store. */
export function changeFinder(
  ctx: ReadContext,
  params: ChangeParams = CHANGE_PARAMS_DEFAULT,
  cache = new HourCache(),
  fine = new FineCache(),
): (f: ChangeFilter, pace: Pace) => Promise<FoundChange[]> {
  const memos = new Map<string, Memo>();
  const pad = paddingMs(params);
  return async (f, pace) => {
    const allSeries = await ctx.pool.all<SeriesInfo>("SELECT id, method, target FROM series", []);
    const clientRows = await ctx.pool.all<{ id: number; client_key: string }>("SELECT id, client_key FROM clients", []);
    const keyOfCode = new Map(clientRows.map((c) => [Number(c.id), c.client_key]));
    let codes = clientRows.map((c) => Number(c.id));
    if (f.clientId !== undefined) {
      const row = clientRows.find((c) => c.client_key === f.clientId);
      if (row === undefined) return [];
      codes = [Number(row.id)];
    }
    const wanted = allSeries.filter(
      (s) =>
        SEARCHED.has(s.method) &&
        (f.methods === undefined || f.methods.length === 0 || f.methods.includes(s.method)) &&
        (f.targets === undefined || f.targets.length === 0 || f.targets.includes(s.target)),
    );
    if (wanted.length === 0) return [];
    // Every series of the wanted targets is read: the baselines tell which part moved.
    const targets = new Set(wanted.map((s) => s.target));
    const read = allSeries.filter((s) => targets.has(s.target) && SEARCHED.has(s.method));
    const idOf = new Map(read.map((s) => [`${s.method} ${s.target}`, Number(s.id)]));
    const cells = new RollupCells(ctx, cache, fine, pace);
    await cells.prepare(
      read.map((s) => Number(s.id)),
      codes,
      f.fromMs - pad,
      read.filter((s) => REPORTS_SERVER_TIME.has(s.method)).map((s) => Number(s.id)),
    );

    // A target's keys (all clients' and each client's, every series): a change reads no others.
    const stampOf = (target: string): { stamp: string; settledMs: number } => {
      const parts: string[] = [];
      let settledMs = Infinity;
      for (const s of read)
        if (s.target === target)
          for (const client of [null, ...codes])
            for (const server of REPORTS_SERVER_TIME.has(s.method) ? [false, true] : [false]) {
              const state = cells.state({ series: Number(s.id), client, server });
              parts.push(state === null ? "-" : String(state.generation));
              if (state !== null) settledMs = Math.min(settledMs, state.freshFromMs - pad);
            }
      return { stamp: parts.join(","), settledMs };
    };

    const out: FoundChange[] = [];
    for (const s of wanted) {
      const series = Number(s.id);
      const memoKey = `${series}|${f.clientId ?? "*"}`;
      const { stamp, settledMs } = stampOf(s.target);
      const memo = memos.get(memoKey);
      const reusable = memo !== undefined && memo.stamp === stamp && memo.fromMs <= f.fromMs;
      // Searched from where the memo ends (not from the request's start: the memo stays one span).
      const from = reusable ? memo.toMs : f.fromMs;
      const kept = reusable ? memo.changes : [];
      const fresh: FoundChange[] = [];
      if (from <= f.toMs) {
        const clients = cells
          .clientsWithData(series, codes, from - pad, f.toMs + pad)
          .map((c): RollupKey => ({ series, client: c }));
        let points: SeriesPoint<RollupKey>[];
        if (f.clientId === undefined)
          points = await findSeriesChanges(cells, { series, client: null }, clients, from, f.toMs, params);
        else {
          const own: RollupKey = { series, client: codes[0]! };
          points = (await findChangePoints(cells, own, from, f.toMs, params)).map((pt) => ({ ...pt, client: own }));
        }
        const context = {
          method: s.method,
          target: s.target,
          series,
          idOf,
          clientIdOf: (code: number) => keyOfCode.get(code) ?? null,
          nameOf: f.nameOf ?? (() => null),
        };
        for (const pt of points) fresh.push(await describeChange(cells, context, pt));
      }
      out.push(...kept.filter((c) => c.t >= f.fromMs && c.t <= f.toMs), ...fresh);
      // What is settled now is kept for the next request (from where the kept part began).
      const memoFrom = reusable ? memo.fromMs : f.fromMs;
      const memoTo = Math.min(settledMs, f.toMs + 1);
      if (memoTo > memoFrom) {
        memos.delete(memoKey);
        memos.set(memoKey, {
          stamp,
          fromMs: memoFrom,
          toMs: Math.max(memoTo, reusable ? memo.toMs : memoTo),
          changes: [...kept, ...fresh.filter((c) => c.t < memoTo)],
        });
        if (memos.size > MEMOS_MAX) memos.delete(memos.keys().next().value!);
      }
    }
    return out.sort((a, b) => a.t - b.t || a.method.localeCompare(b.method) || a.target.localeCompare(b.target));
  };
}
